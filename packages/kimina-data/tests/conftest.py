import os
from pathlib import Path

import pytest
from kimina_data.variants import GeminiSettings

FIXTURES = Path(__file__).parent / "fixtures"


def _shared_data() -> Path:
    env = os.environ.get("KIMINA_SHARED_DATA")
    path = Path(env) if env else Path(__file__).resolve().parents[3].parent / "shared" / "data"
    if not (path / "minif2f.jsonl").is_file():
        pytest.fail(f"shared data not found at {path}: set KIMINA_SHARED_DATA to the folder holding minif2f.jsonl")
    return path


@pytest.fixture(scope="session")
def shared_data() -> Path:
    return _shared_data()


@pytest.fixture(scope="session")
def minif2f_file(shared_data: Path) -> Path:
    return shared_data / "minif2f.jsonl"


@pytest.fixture(autouse=True)
def _no_gemini_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests never reach the real Gemini: a key in the developer's environment must not change what they do."""
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)


@pytest.fixture(scope="session")
def numina_fixture() -> Path:
    """Hand-written synthetic rows in the NuminaMath-LEAN schema; fixtures/README.md says what each one tests."""
    return FIXTURES / "numina_lean_synthetic.jsonl"


@pytest.fixture
def fast_gemini() -> GeminiSettings:
    """Gemini settings that never wait: no rate limit to speak of, millisecond backoff."""
    return GeminiSettings(requests_per_minute=1e9, backoff_s=0.001, max_backoff_s=0.001)
