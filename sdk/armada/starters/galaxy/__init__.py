"""Galaxy starter bots: random, greedy, prober (weakest to strongest)."""
