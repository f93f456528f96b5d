"""The `armada` subcommands, one module each: `add_parser(sub)` declares it, `run(args)` runs it.

The helpers they share (site client, config, output, packing, boards...) stay in `armada.cli`.
"""
