"""The Galaxy example of docs/bot-library.md is real code: it runs, plays legally and beats random."""

import importlib
import re
import runpy
from pathlib import Path

from armada.bot.galaxy import GalaxyBot
from tests.sdk.bots.galaxy_match import play_match

random_starter = importlib.import_module("armada.starters.galaxy.random")
DOC = Path(__file__).resolve().parents[3] / "docs" / "bot-library.md"


def galaxy_example() -> str:
    """The first Python block of the doc's Galaxy section."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("\n## Galaxy\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    return next(b for b in blocks if "class Bot(GalaxyBot)" in b)


def load_example(tmp_path) -> type[GalaxyBot]:
    script = tmp_path / "main.py"
    script.write_text(galaxy_example(), encoding="utf-8")
    return runpy.run_path(str(script), run_name="doc_example")["Bot"]


def test_example_is_a_complete_bot_script(tmp_path):
    source = galaxy_example()
    assert source.rstrip().endswith('if __name__ == "__main__":\n    run(Bot())')
    assert issubclass(load_example(tmp_path), GalaxyBot)


def test_example_plays_legally_and_beats_random(tmp_path):
    bot_class = load_example(tmp_path)
    wins = 0
    for seed in range(3):
        for seat in (1, 2):
            bots = {seat: bot_class(), 3 - seat: random_starter.Bot()}
            result, warnings = play_match(bots, seed, max_turns=60)
            assert warnings[seat] == [], warnings[seat]
            wins += result.winner == seat
    assert wins >= 5, wins
