// Package inflate decompresses what pathcover reads from files it wrote,
// within bounds fixed before a byte is inflated: the most the format can
// hold, and the most its compression could plausibly have saved. A file
// from elsewhere (a 255 KB gzip stream of zeros inflates to gigabytes)
// then costs at most the bound in memory and time, and is refused with a
// reason, before anything parses it.
package inflate
