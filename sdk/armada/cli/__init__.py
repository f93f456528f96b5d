"""The `armada` command line (entry point: `armada.cli.main:main`).

`commands/` holds one module per subcommand; the modules here are the helpers they share.
"""
