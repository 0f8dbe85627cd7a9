"""Real browser: Training, step by step — stepping, auto-play timing and smoothness (frames measured in the page)."""
from __future__ import annotations

import json

from playwright.sync_api import Page, expect

FIRST = 60_000

# Counts animation frames and records when the "Step" metric changes, from inside the page.
PROBE = """() => {
  window.__probe = {frames: [], steps: []};
  let last = null;
  const tick = (t) => {
    window.__probe.frames.push(t);
    const m = [...document.querySelectorAll('[data-testid="stMetric"]')]
      .find(e => e.innerText.startsWith('Step'));
    const v = m ? m.querySelector('[data-testid="stMetricValue"]').innerText : null;
    if (v !== last) { window.__probe.steps.push([t, v]); last = v; }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}"""

# The "Step" metric shows step `k` or a later one (a value drawn for a moment can pass between two polls).
STEP_AT_LEAST = """(k) => {
  const m = [...document.querySelectorAll('[data-testid="stMetric"]')].find(e => e.innerText.startsWith('Step'));
  const v = m && m.querySelector('[data-testid="stMetricValue"]');
  return !!v && parseInt(v.innerText, 10) >= k;
}"""


def count_reruns(page: Page) -> dict[str, int]:
    """Count the browser's rerun requests on the app's websocket: a whole page, or one fragment (its id set)."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    counts = {"page": 0, "fragment": 0, "on": False}

    def sent(payload) -> None:
        if not counts["on"] or isinstance(payload, str):
            return
        msg = BackMsg()
        msg.ParseFromString(payload)
        if msg.WhichOneof("type") == "rerun_script":
            counts["fragment" if msg.rerun_script.fragment_id else "page"] += 1

    page.on("websocket", lambda ws: ws.on("framesent", sent))
    return counts


def metric(page: Page, label: str):
    return page.get_by_test_id("stMetric").filter(has_text=label).get_by_test_id("stMetricValue")


def test_step_to_five_and_auto_play_is_smooth(page: Page, screenshot):
    reruns = count_reruns(page)
    page.goto("/train-steps?v.tsteps_source=" + json.dumps("nursery rhyme") + "&v.tsteps_speed=" + json.dumps("fast"))
    expect(metric(page, "Step")).to_have_text("0 of 20", timeout=FIRST)
    for k in range(1, 6):
        page.get_by_role("button", name="Step ▶").click()
        expect(metric(page, "Step")).to_have_text(f"{k} of 20")
    expect(page.locator(".tsteps-text .tok.new").first).to_be_visible()
    expect(page.locator(".tsteps-pairs tr.win")).to_have_count(1)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    screenshot("train_steps_step5")

    page.evaluate(PROBE)
    reruns["on"] = True
    page.get_by_role("button", name="⏵ Auto-play").click()
    # Auto-play advancing to the end: each next step given a first render's ceiling (a loaded machine was at 18 of 20
    # after a fixed 30 s for all fifteen, still stepping); a stalled one fails at the step it stopped on.
    for k in range(6, 21):
        page.wait_for_function(STEP_AT_LEAST, arg=k, timeout=FIRST, polling=100)
    expect(metric(page, "Step")).to_have_text("20 of 20")
    expect(page.get_by_role("button", name="⏵ Auto-play")).to_be_visible(timeout=FIRST)  # stopped at the end
    probe = page.evaluate("window.__probe")
    changes = [t for t, v in probe["steps"] if v and v != "5 of 20"]
    per_step = [(b - a) for a, b in zip(changes, changes[1:])]
    frames = [t for t in probe["frames"] if changes[0] <= t <= changes[-1]]
    gaps = [(b - a) for a, b in zip(frames, frames[1:])]
    fps = len(gaps) / ((frames[-1] - frames[0]) / 1000)
    print(f"auto-play: {len(changes)} steps, ms/step median {sorted(per_step)[len(per_step) // 2]:.0f}, "
          f"max {max(per_step):.0f}; {fps:.0f} frames/s, longest frame {max(gaps):.0f} ms")
    print(f"reruns during auto-play: {reruns['page']} of the page, {reruns['fragment']} of the fragment")
    assert reruns["page"] <= 2  # turning it on, and the stop at the end
    assert reruns["fragment"] >= 14  # every step reran only the fragment
    assert len(changes) >= 14  # each step drawn, none skipped in bulk
    # How fast and how smooth (ms a step, the longest frame) is printed above and measured by bench/bench_ui.py, not
    # asserted: a timed assertion fails on a busy machine (the longest frame was 1,017 ms at load 13, issue 32).
    # What makes it smooth is asserted: only the fragment reruns, never the page.
