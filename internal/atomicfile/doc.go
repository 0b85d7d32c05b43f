// Package atomicfile writes the files pathcover makes (merged profiles,
// pages, exports, compacted whole program paths, whole execution traces,
// its caches' entries) whole or not at all, and never through a link.
//
// Every such file is written into a new file beside its target, created
// with O_EXCL under a random name, and renamed over the target once
// complete. Two guarantees follow. A reader, or a full disk, or a kill,
// never leaves half a file where the old one was. And nothing another
// user planted at the target is followed: rename replaces a symbolic link
// at the target with the new file, where a plain create would have
// opened the link and overwritten whatever it names (another user who can
// write a shared profile directory could point profile.wet at the victim's
// files).
package atomicfile
