"""Development data, never part of the product: the demo users and bots `make up` seeds
(`seed_demo`, `ensure_demo_admin`) and a season's data for the scale tests and benches
(`seed_scale`, `devdata.scale`). Installed only when DEBUG is on or ARMADA_DEVDATA is set
(settings.py): the production settings that serve a competition leave it out."""
