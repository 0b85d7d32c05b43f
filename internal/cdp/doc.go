// Package cdp drives a headless Chromium over the DevTools protocol, just
// enough for tests of pathcover's HTML page: open a page, evaluate
// JavaScript, click, press keys, take screenshots.
package cdp
