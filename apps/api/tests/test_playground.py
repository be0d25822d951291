"""The playground page: served from the package, examples from miniF2F, and driven in headless Chromium."""

from __future__ import annotations

import json
import os
import re
import tempfile
from importlib.resources import files
from pathlib import Path

import pytest
from kimina_api.app import create_app
from kimina_api.settings import Settings

CHROMIUM = Path(os.environ.get("KIMINA_CHROMIUM", "/usr/bin/chromium"))
# Without the background-networking flags Chromium keeps dialling Google's hosts, which this network refuses.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOT_DIR = Path(os.environ.get("KIMINA_SCREENSHOT_DIR", tempfile.gettempdir()))


def test_examples_are_real_minif2f_statements(minif2f) -> None:
    examples = json.loads((files("kimina_api") / "static" / "examples.json").read_text(encoding="utf-8"))
    assert len(examples) >= 10
    for example in examples:
        row = minif2f[example["name"]]
        assert example["formal_statement"] == row["formal_statement"]
        assert example["informal_problem"] and example["informal_problem"] in row["informal_prefix"]


async def test_page_and_assets_are_served(make_client, replayer) -> None:
    async with make_client(Settings(), engine=replayer()) as client:
        page = await client.get("/")
        script = await client.get("/playground/playground.js")
        style = await client.get("/playground/playground.css")
        examples = await client.get("/playground/examples.json")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert 'src="/playground/playground.js"' in page.text
    assert script.status_code == style.status_code == examples.status_code == 200
    assert "innerHTML" not in script.text  # model output is inserted as text only


async def test_playground_can_be_turned_off(make_client, replayer) -> None:
    async with make_client(Settings(playground=False), engine=replayer()) as client:
        assert (await client.get("/")).status_code == 404


@pytest.mark.skipif(not CHROMIUM.is_file(), reason=f"{CHROMIUM} is missing: apt-get install chromium")
def test_browser_submits_an_example_and_shows_the_verdict(serve, replayer, verifier) -> None:
    """Load the page, pick a miniF2F example, prove it, and see attempts stream in with Lean's verdicts."""
    from playwright.sync_api import expect, sync_playwright

    app = create_app(Settings(**verifier), engine=replayer(broken_first=True))
    with serve(app) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(url)
            # The stand-in is named in the pill itself: its verdicts are not proofs.
            expect(page.locator("#health")).to_contain_text("engine ready · verifier STAND-IN (lean-repl-sim, no Lean)")
            page.get_by_role("button", name="mathd_algebra_171").click()
            expect(page.locator("#statement")).to_have_value(
                "theorem mathd_algebra_171 (f : ℝ → ℝ) (h₀ : ∀ x, f x = 5 * x + 4) : f 1 = 9 := by\n"
            )
            page.get_by_role("button", name="Prove").click()
            expect(page.locator("#summary")).to_contain_text("Proved ✓", timeout=60_000)
            expect(page.locator("article.attempt")).to_have_count(2)
            first = page.locator("#attempt-0")
            expect(first.locator(".badge.lean_error")).to_be_visible()  # the broken first turn, and why
            expect(first.locator(".turn-1 pre.lean")).to_have_text(
                re.compile(r"^\d+:\d+ error: unknown identifier 'this_lemma_does_not_exist'$")
            )
            expect(first.locator(".turn-2 .badge.valid")).to_have_text("valid proof")  # fixed by the second
            expect(first.locator(".turn-2 pre.code")).to_contain_text("theorem mathd_algebra_171")
            page.locator("#attempt-0 .turn-2 details summary").first.click()  # open the fix's thinking
            page.screenshot(path=str(SCREENSHOT_DIR / "kimina-api-playground.png"), full_page=True)
        finally:
            browser.close()
