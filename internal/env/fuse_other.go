//go:build !amd64 || amd64.v3

package env

// compilerFuses reports that the compiler may fuse x·y + z into one FMA:
// with GOAMD64=v3 or later, and on other architectures, it may, and it may
// fuse two copies of one expression differently (a load from memory in one
// of them is enough). Code that must give another copy's bits is then left
// out.
const compilerFuses = true
