"""scripts/setup_test_machine.sh's decisions, driven with stub apt-get / fc-list / id on a PATH of our own.

The stubs log each call; a stub apt-get "installs" a package by dropping a stub command (or a font name) where the
script's next check looks, or refuses one the way apt refuses a conflicting package.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "setup_test_machine.sh"
ALL_FONTS = ("Noto Sans CJK JP", "Noto Color Emoji", "DejaVu Sans", "Noto Sans Devanagari")
GIVES = {"chromium": "cmd:chromium", "chromium-headless-shell": "cmd:chromium-headless-shell", "nginx": "cmd:nginx", "npm": "cmd:npm",
         "fonts-noto-cjk": "font:Noto Sans CJK JP", "fonts-noto-color-emoji": "font:Noto Color Emoji",
         "fonts-dejavu-core": "font:DejaVu Sans", "fonts-noto-core": "font:Noto Sans Devanagari"}
NPM_CONFLICT = """Reading package lists...
Some packages could not be installed. This may mean that you have
requested an impossible situation.
The following packages have unmet dependencies:
 nodejs : Conflicts: npm
E: Unable to correct problems, you have held broken packages."""


def _stub(path: Path, body: str) -> None:
    path.write_text("#!/bin/bash\n" + body)
    path.chmod(0o755)


def machine(tmp_path: Path, *, have: set[str], uid: int = 0, refuse: dict[str, str] | None = None,
            nodejs: str | None = None):
    """A PATH holding bash's basics, the stubs, and a stub command for each `have` entry (cmd:X / font:F);
    `nodejs`: what a stub dpkg-query says of the installed nodejs package ("Status|Conflicts|Provides")."""
    bin_dir, log, fonts = tmp_path / "bin", tmp_path / "apt.log", tmp_path / "fonts"
    bin_dir.mkdir()
    for tool in ("bash", "cat", "grep", "head", "sed", "paste", "env", "chmod", "touch", "printf"):
        os.symlink(shutil.which(tool), bin_dir / tool)
    fonts.write_text("".join(f"/f/{h[5:]}.ttf: {h[5:]}:style=Regular\n" for h in have if h.startswith("font:")))
    for h in have:
        if h.startswith("cmd:"):
            _stub(bin_dir / h[4:], "exit 0\n")
    _stub(bin_dir / "fc-list", f"cat {fonts}\n")
    _stub(bin_dir / "id", f"echo {uid}\n")
    if nodejs is not None:
        _stub(bin_dir / "dpkg-query", f"printf '%s' '{nodejs}'\n")
    for pkg, reason in (refuse or {}).items():
        (tmp_path / f"refuse-{pkg}").write_text(reason + "\n")
    cases = "".join(f"  {pkg}) cat {tmp_path}/refuse-{pkg}; exit 100;;\n" for pkg in (refuse or {}))
    gives = "".join(
        f"  {pkg}) " + (f"printf '#!/bin/bash\\nexit 0\\n' > {bin_dir}/{g[4:]}; chmod +x {bin_dir}/{g[4:]};;\n"
                        if g.startswith("cmd:") else f"echo '/f/x.ttf: {g[5:]}:style=Regular' >> {fonts};;\n")
        for pkg, g in GIVES.items())
    _stub(bin_dir / "apt-get", f'echo "$*" >> {log}\n[ "$1" = update ] && exit 0\npkg="${{@: -1}}"\n'
          f'case "$pkg" in\n{cases}{gives}esac\nexit 0\n')
    run = subprocess.run(["bash", str(SCRIPT)], env={"PATH": str(bin_dir)}, capture_output=True, text=True,
                         timeout=60)
    calls = log.read_text().splitlines() if log.exists() else []
    installs = [c.split()[-1] for c in calls if c.startswith("install")]
    return run, calls, installs


EVERYTHING = {"cmd:chromium", "cmd:chromium-headless-shell", "cmd:nginx", "cmd:npm", *(f"font:{f}" for f in ALL_FONTS)}


def test_nothing_missing_asks_apt_for_nothing(tmp_path):
    run, calls, _ = machine(tmp_path, have=EVERYTHING)
    assert run.returncode == 0 and calls == [], run.stderr
    assert "nothing to install" in run.stdout


def test_npm_on_the_path_is_never_asked_for(tmp_path):
    run, calls, installs = machine(tmp_path, have=EVERYTHING - {"cmd:chromium", "cmd:nginx"})
    assert installs == ["chromium", "nginx"], calls
    assert calls[0].startswith("update") and "npm" not in " ".join(calls)
    assert run.returncode == 0 and "NOTE" not in run.stderr


def test_each_missing_font_is_asked_for_alone(tmp_path):
    run, _, installs = machine(tmp_path, have={"cmd:chromium", "cmd:chromium-headless-shell", "cmd:nginx", "cmd:npm",
                                               "font:DejaVu Sans"})
    assert installs == ["fonts-noto-cjk", "fonts-noto-color-emoji", "fonts-noto-core"]
    assert run.returncode == 0 and "NOTE" not in run.stderr


def test_apt_refusing_one_package_still_installs_the_others_and_says_why(tmp_path):
    run, _, installs = machine(tmp_path, have={"cmd:nginx", "font:DejaVu Sans"}, refuse={"npm": NPM_CONFLICT})
    # every missing thing was asked for, one at a time, npm's refusal in the middle stopping nothing
    assert installs == ["chromium", "chromium-headless-shell", "npm", "fonts-noto-cjk", "fonts-noto-color-emoji",
                        "fonts-noto-core"]
    assert run.returncode == 0
    note = run.stderr
    assert "could not install npm (npm)" in note
    assert "nodejs : Conflicts: npm" in note and "E: Unable to correct problems" in note  # apt's own words
    assert "install_gemma.py" in note  # the tests it affects
    assert "chromium" not in note.split("could not install npm")[0]  # chromium was installed: no NOTE for it
    assert "1 of 6 missing package(s) could not be installed" in note


def test_a_package_that_installs_but_does_not_give_the_command_is_reported(tmp_path):
    run, _, installs = machine(tmp_path, have=EVERYTHING - {"cmd:chromium"}, refuse={"chromium": "Setting up x"})
    assert installs == ["chromium"]
    assert "could not install chromium" in run.stderr and "tests/browser" in run.stderr


@pytest.mark.parametrize("uid", [1000])
def test_not_root_installs_nothing_and_prints_the_command(tmp_path, uid):
    run, calls, _ = machine(tmp_path, have=EVERYTHING - {"cmd:chromium", "font:Noto Color Emoji"}, uid=uid)
    assert calls == [] and run.returncode == 0
    assert "sudo apt-get install --no-install-recommends chromium fonts-noto-color-emoji" in run.stderr


NODESOURCE = "install ok installed|nodejs-dev, nodejs-doc, nodejs-legacy, npm|nodejs-dev, nodejs-doc, nodejs-legacy, npm"


def test_npm_off_the_path_beside_nodesources_nodejs_is_not_asked_of_apt(tmp_path):
    """NodeSource's nodejs ships npm and conflicts with Debian's: apt is not asked (it would refuse), the note says
    where the npm to use comes from; the rest is still installed."""
    run, calls, installs = machine(tmp_path, have=EVERYTHING - {"cmd:npm", "cmd:nginx"}, nodejs=NODESOURCE)
    assert installs == ["nginx"], calls
    assert "npm" not in " ".join(calls)
    assert "the installed nodejs package ships its own npm" in run.stderr and "install_gemma.py" in run.stderr


def test_npm_missing_beside_debians_own_nodejs_is_asked_for(tmp_path):
    run, _, installs = machine(tmp_path, have=EVERYTHING - {"cmd:npm"}, nodejs="install ok installed|nodejs-doc|")
    assert installs == ["npm"] and "NOTE" not in run.stderr
