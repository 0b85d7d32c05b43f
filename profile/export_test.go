package profile

// NextHole is nextHole, for the readers' test in package profile_test.
var NextHole = nextHole
