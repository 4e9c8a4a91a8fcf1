"""English words for the queue's work policy and why the worker waits (`queue run`,
`queue list`); the GUI's are tr() texts in app/ui/queue/work_texts.py."""

from __future__ import annotations

from app.pipeline import work_policy as wp

WAITING = {
    wp.AT_COMPUTER: "waiting: you are at the computer",
    wp.NO_IDLE_SOURCE: "waiting: this computer cannot tell when it is idle",
    wp.OUTSIDE_HOURS: "waiting until {until}",
    wp.ON_BATTERY: "waiting: the computer runs on battery",
}


def policy_text(policy: dict[str, object]) -> str:
    """`WorkPolicy.to_json()` in words."""
    mode = policy.get("mode")
    if mode == wp.IDLE:
        text = f"when idle (no input for {policy.get('idle_minutes')} min)"
    elif mode == wp.HOURS:
        text = f"in hours {policy.get('hours')}"
    else:
        text = "always"
    return text + (", not on battery" if policy.get("not_on_battery") else "")


def waiting_text(verdict: wp.Verdict) -> str:
    if verdict.work:
        return "working"
    return WAITING.get(verdict.reason, "waiting").format(until=verdict.until)
