package driver_test

import (
	"os"
	"testing"

	"github.com/pathcover/pathcover/internal/cmdtest"
)

// TestMain removes the pppexec that the tests built (cmdtest.RunTests).
func TestMain(m *testing.M) { os.Exit(cmdtest.RunTests(m)) }
