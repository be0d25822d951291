from pathlib import Path

import pytest
from kimina_data.variants import GeminiSettings

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="session")
def minif2f_file(data_dir: Path) -> Path:
    return data_dir / "minif2f.jsonl"


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


@pytest.fixture
def no_packaged_minif2f(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An installation whose packaged miniF2F file is missing."""
    monkeypatch.setattr("kimina_data.minif2f.PACKAGED_MINIF2F", tmp_path / "nowhere" / "minif2f.jsonl")


def disguise(statement: str, name: str, number: int) -> str:
    """A real statement renamed, laid out differently and commented: a copy that only a normalised key catches."""
    body = statement.strip().replace(f"theorem {name}", f"theorem numina_{number}", 1)
    if number % 3 == 0:
        reflowed = body.replace(" : ", " :\n    ", 1)
        return f"import Mathlib\n\n/-- (synthetic) a copy -/\n{reflowed} sorry"
    if number % 3 == 1:
        return body.replace(" := by", "  -- (synthetic) copied\n  :=\n  by", 1).replace("(", "( ", 1)
    return body.replace(" : ", " /- (synthetic) -/  :  ", 1).replace(" ", "  ", 3)


@pytest.fixture(scope="session")
def contaminated(minif2f_file: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """Synthetic NuminaMath-LEAN rows copying 6 real miniF2F statements (3 valid, 3 test) in disguise.

    Returns the JSON Lines file and, per row uuid, the miniF2F problem it copies (`minif2f-test:name`).
    """
    import json

    problems = [json.loads(line) for line in minif2f_file.read_text(encoding="utf-8").splitlines()]
    chosen = [p for p in problems if p["split"] == "valid"][:3] + [p for p in problems if p["split"] == "test"][:3]
    path = tmp_path_factory.mktemp("contaminated") / "contaminated.jsonl"
    copies: dict[str, str] = {}
    with path.open("w", encoding="utf-8") as f:
        for number, problem in enumerate(chosen):
            uuid = f"synthetic-copy-{number}"
            statement = problem["formal_statement_rectified"] or problem["formal_statement"]
            row = {
                "uuid": uuid,
                "problem": "(synthetic) a copy of a miniF2F problem",
                "formal_statement": disguise(statement, problem["name"], number),
                "rl_data": {"n_correct_proofs": 0, "n_proofs": 8, "win_rate": 0.0},
                "author": "human",
                "source": "synthetic",
            }
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
            copies[uuid] = f"minif2f-{problem['split']}:{problem['name']}"
    return path, copies
