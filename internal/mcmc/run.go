package mcmc

import (
	"fmt"
	"sync"
)

// RunChains runs work(i, chains[i]) for every chain on up to workers
// goroutines (at least 1). Each chain draws from its own stream, so the
// chains' draws do not depend on workers or on the order the goroutines
// run in. It returns the error of the lowest-numbered chain that failed,
// naming the chain; every chain runs to its end or its error.
func RunChains(chains []*Chain, workers int, work func(i int, c *Chain) error) error {
	errs := make([]error, len(chains))
	workers = max(1, min(workers, len(chains)))
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = work(i, chains[i])
			}
		}()
	}
	for i := range chains {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("chain %d: %w", i, err)
		}
	}
	return nil
}

// Draws warms up every chain from its x0 (already Started) and then draws
// n states thinned by thin from each, on up to workers goroutines:
// out[i] (n×d, row-major) holds chain i's draws.
func Draws(chains []*Chain, n, thin, workers int) ([][]float64, error) {
	out := make([][]float64, len(chains))
	err := RunChains(chains, workers, func(i int, c *Chain) error {
		if err := c.Warmup(); err != nil {
			return err
		}
		out[i] = make([]float64, n*c.d)
		return c.Sample(n, thin, out[i])
	})
	return out, err
}
