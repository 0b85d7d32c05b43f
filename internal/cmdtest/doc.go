// Package cmdtest runs commands for end-to-end tests.
package cmdtest
