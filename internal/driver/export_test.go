package driver

// NeedFreeSpace is needFreeSpace, for the external tests that store into
// the compile cache.
var NeedFreeSpace = needFreeSpace
