package runner

import "github.com/smrl-dev/smrl/internal/errs"

// protect is errs.Protect, callable inside Run (whose local errs slice
// shadows the package).
func protect(f func() error) error { return errs.Protect(f) }
