"""`platform/` is a source folder, never a package: `import platform` must stay the stdlib's."""

import platform
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STDLIB = Path(sysconfig.get_paths()["stdlib"]).resolve()


def _is_stdlib(path: str) -> bool:
    return Path(path).resolve().parent == STDLIB


def test_platform_is_stdlib_under_pytest():
    assert _is_stdlib(platform.__file__), platform.__file__
    assert platform.python_version().startswith("3.")


def test_platform_is_stdlib_in_site_environment():
    code = "import platform, armada_web; print(platform.__file__); print(platform.system())"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    path, system = out.stdout.split()
    assert _is_stdlib(path)
    assert system == "Linux"


def test_platform_is_stdlib_through_manage_py():
    code = "import platform; print(platform.__file__)"
    out = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert _is_stdlib(out.stdout.strip().splitlines()[-1])


def test_no_package_named_platform():
    assert not (ROOT / "platform" / "__init__.py").exists()
    assert not any(p.name == "platform" for p in (ROOT / "tests").rglob("*") if p.is_dir())


def test_ruff_flags_modules_shadowing_the_standard_library(tmp_path):
    shadow = tmp_path / "pkg" / "platform"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text('"""A module that shadows the standard library."""\n')
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--config", str(ROOT / "pyproject.toml"), str(shadow / "__init__.py")],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1
    assert "A005" in result.stdout
