// Command smrl runs the experiments of "Exponential Family Model-Based
// Reinforcement Learning via Score Matching" (NeurIPS 2022).
package main

import "os"

func main() { os.Exit(int(Main(os.Args[1:], os.Stdout, os.Stderr))) }
