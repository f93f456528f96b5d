"""The `armada` command line (entry point: `armada.cli.main:main`)."""
