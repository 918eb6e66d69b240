//go:build amd64 && !amd64.v3

package env

// compilerFuses reports that the compiler may fuse x·y + z into one FMA.
// A default amd64 build (below GOAMD64=v3) never does.
const compilerFuses = false
