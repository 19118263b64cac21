"""Rules of the validator that mutation testing found unchecked: image signatures, the report's text, a zip with no
competition.yaml, and which metadata file each platform reads from a scoring program."""
import zipfile

import pytest

from codalab_bundles import validate
from codalab_bundles.authoring import taskdef
from codalab_bundles.validate import contents
from codalab_bundles.validate.findings import Finding
from codalab_bundles.zips import pack
from test_validate import program_zip, rewrite, toy_bundles as toy  # noqa: F401 (a fixture)
from toy_task import make_toy

GOOD = "command: python3 $program/evaluate.py $input $output\n"
PIPED = "command: python3 $program/evaluate.py $input $output | tee log\n"


@pytest.mark.parametrize("head, expected", [
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR" + b"\0" * 16, True),
    (b"\xff\xd8\xff\xe0" + b"\0" * 28, True),
    (b"GIF87a" + b"\0" * 26, True), (b"GIF89a" + b"\0" * 26, True),
    (b"BM" + b"\0" * 30, True),                       # a Windows bitmap: "BM" at the very start
    (b"RIFF\x24\0\0\0WEBPVP8 " + b"\0" * 16, True),   # WebP: RIFF, a length, then WEBP at offset 8
    (b"xBM" + b"\0" * 29, False), (b"WEBP" + b"\0" * 28, False), (b"<svg xmlns=" + b"\0" * 21, False),
    (b"", False)])
def test_logo_signatures_pillow_opens(head, expected):
    assert contents.is_image(head) is expected


def _jpeg(*segments):
    return b"\xff\xd8" + b"".join(segments)


def _segment(marker, body):
    return bytes([0xFF, marker]) + (len(body) + 2).to_bytes(2, "big") + body


@pytest.mark.parametrize("data, components", [
    (_jpeg(_segment(0xE0, b"JFIF\0" + b"\0" * 9), _segment(0xC0, b"\x08\x00\x10\x00\x10\x03" + b"\0" * 9)), 3),
    (_jpeg(b"\xff", _segment(0xC2, b"\x08\x00\x10\x00\x10\x04" + b"\0" * 12)), 4),  # a fill byte; progressive
    (_jpeg(_segment(0xC4, b"\0" * 20), _segment(0xC1, b"\x08\x00\x10\x00\x10\x01\0\0\0")), 1),  # DHT is no frame
    (_jpeg(_segment(0xDB, b"\0" * 65)), None),  # no frame at all
    (_jpeg(_segment(0xC0, b"\x08\x00")), None),  # a frame cut short
])
def test_jpeg_frame_components(data, components):
    assert contents.jpeg_components(data) == components
    assert contents.is_cmyk_jpeg(data) is (components == 4)


def test_the_report_a_person_reads():
    findings = [Finding("note", "codabench", "stored-dates", "phases.0", "Codabench stores phase 1"),
                Finding("error", "codalab", "zip", "(zip)", "no competition.yaml in the bundle", "put it at the root"),
                Finding("warning", "codabench", "pages", "pages.data", "data.html is empty")]
    assert validate.format_findings("b.zip", "1", findings) == "\n".join([
        "b.zip: CodaLab v1.5 bundle (version 1)",
        "  error   [CodaLab v1.5] (zip): no competition.yaml in the bundle",
        "          what to change: put it at the root",
        "  warning [Codabench] pages.data: data.html is empty",
        "  note    [Codabench] phases.0: Codabench stores phase 1",
        "2 finding(s) to fix"])
    assert validate.format_findings("b.zip", None, findings[:1]).splitlines() == [
        "b.zip: not a readable bundle", "  note    [Codabench] phases.0: Codabench stores phase 1",
        "OK: nothing to change"]


def test_a_zip_without_competition_yaml_fails_on_both_platforms(tmp_path):
    path = tmp_path / "no-yaml.zip"
    path.write_bytes(pack.zip_entries([("overview.html", b"<p>hi</p>")]))
    version, findings = validate.validate(str(path), platforms=("codabench", "codalab"))
    assert [(f.severity, f.platform, f.rule, f.message) for f in findings] == [
        ("error", "codabench", "zip", "no competition.yaml in the bundle"),
        ("error", "codalab", "zip", "no competition.yaml in the bundle")]
    assert not validate.passed(findings) and not validate.imports(findings)


def _program_findings(toy, tmp_path, files, platform):
    bundle = toy.codabench if platform == "codabench" else toy.codalab
    path = rewrite(bundle, tmp_path / ("%s.zip" % platform), edit_files={"scoring_program.zip": program_zip(
        dict(files, **{"evaluate.py": "print(1)\n"}))})
    _, findings = validate.validate(str(path), platforms=(platform,), replay=False)
    return [(f.severity, f.message) for f in findings if f.rule == "program"]


@pytest.mark.parametrize("platform, reads_piped", [("codabench", True), ("codalab", False)])
def test_which_metadata_file_each_platform_reads(toy, tmp_path, platform, reads_piped):
    """Both metadata and metadata.yaml at the root: Codabench reads metadata.yaml, CodaLab only metadata. The piped
    command is in metadata.yaml, so only Codabench's check sees it."""
    found = _program_findings(toy, tmp_path, {"metadata": GOOD, "metadata.yaml": PIPED}, platform)
    assert any("|" in message or "pipe" in message for _, message in found) is reads_piped, found


def test_codalab_reads_a_plain_metadata_below_a_root_metadata_yaml(toy, tmp_path):
    """CodaLab never reads metadata.yaml: with one at the root and a plain metadata in a folder, the folder's is its
    program's (and the folder gets the warning CodaLab's promotion deserves); only metadata.yaml is an error."""
    found = _program_findings(toy, tmp_path, {"metadata.yaml": PIPED, "program/metadata": GOOD}, "codalab")
    assert not any("reads only a file named metadata" in message for _, message in found), found
    assert not any("pipe" in message for _, message in found), found
    found = _program_findings(toy, tmp_path, {"metadata.yaml": GOOD}, "codalab")
    assert found == [("error", "CodaLab reads only a file named metadata, not metadata.yaml")]


def test_the_toy_program_is_what_these_tests_rewrite(toy):
    with zipfile.ZipFile(str(toy.codalab)) as bundle:
        assert "scoring_program.zip" in bundle.namelist()


def _v15_findings(toy, tmp_path, name, platforms, edit_yaml=None, edit_files=None):
    path = rewrite(toy.codalab, tmp_path / ("%s.zip" % name), edit_yaml, edit_files)
    _, findings = validate.validate(str(path), platforms=platforms, replay=False)
    return [(f.severity, f.platform, f.rule, f.where, f.message) for f in findings]


def test_a_missing_logo_is_named_on_both_platforms(toy, tmp_path):
    found = _v15_findings(toy, tmp_path, "no-logo", ("codabench", "codalab"), edit_files={"logo.png": None})
    assert [f for f in found if f[2] == "files"] == [
        ("error", "codabench", "files", "image", "logo.png is not in the bundle"),
        ("error", "codalab", "files", "image", "logo.png is not in the bundle")]


def test_a_v15_leaderboard_without_columns_is_refused_by_codabench(toy, tmp_path):
    """Codabench's v1 unpacker raises on a leaderboard without columns; CodaLab's schema says the same its way."""
    found = _v15_findings(toy, tmp_path, "no-columns", ("codabench", "codalab"),
                          lambda y: y[:y.index("  columns:")] + "\n")
    assert [f for f in found if f[2] == "leaderboard" and f[0] == "error"] == [
        ("error", "codabench", "leaderboard", "leaderboard", "'Could not find columns declared on the competition "
         "leaderboard': Codabench refuses the bundle")]
    assert ("error", "codalab", "schema", "leaderboard", "'columns' is a required property") in found


def test_a_computed_column_over_a_missing_column_is_an_error(toy, tmp_path):
    found = _v15_findings(toy, tmp_path, "computed", ("codabench", "codalab"), lambda y: y + (
        "    both:\n      leaderboard: *RESULTS\n      label: Both\n      rank: 3\n"
        "      computed: {operation: Avg, fields: 'accuracy, missing'}\n"))
    assert [f for f in found if f[3] == "leaderboard.columns.both.computed"] == [
        ("error", p, "leaderboard", "leaderboard.columns.both.computed",
         "fields missing are not plain columns (KeyError on upload)") for p in ("codabench", "codalab")]


def test_codalab_ranks_by_the_table_of_the_leaderboard_ranked_first(toy, tmp_path):
    """Two leaderboards: OTHER (rank 1) holds hits, RESULTS (rank 2) accuracy; CodaLab's ranking column is the
    first table's, hits, though accuracy comes first in the file."""
    def two_boards(y):
        y = y.replace('    RESULTS: &RESULTS\n      label: "Results"\n      rank: 1\n',
                      '    RESULTS: &RESULTS\n      label: "Results"\n      rank: 2\n'
                      '    OTHER: &OTHER\n      label: "Other"\n      rank: 1\n')
        return y.replace("    hits:\n      leaderboard: *RESULTS", "    hits:\n      leaderboard: *OTHER")
    found = _v15_findings(toy, tmp_path, "two-boards", ("codalab",), two_boards)
    assert [f[3] for f in found if f[4] == "CodaLab ranks the leaderboard by this column"] == [
        "leaderboard.columns.hits"]


def test_a_page_title_over_255_characters_is_refused_by_codabench(toy, tmp_path):
    key = "p" * 256
    found = _v15_findings(toy, tmp_path, "long-title", ("codabench",),
                          lambda y: y.replace("html:\n", "html:\n  %s: overview.html\n" % key))
    assert ("error", "codabench", "codabench-import", "html.%s" % key,
            "the page title (its key) is longer than 255 characters") in found
    found = _v15_findings(toy, tmp_path, "title-255", ("codabench",),
                          lambda y: y.replace("html:\n", "html:\n  %s: overview.html\n" % key[:255]))
    assert not [f for f in found if f[2] == "codabench-import"]


def test_mistyped_keys_get_the_closest_known_ones(toy, tmp_path):
    path = rewrite(toy.codalab, tmp_path / "typos.zip", lambda y: "titel: x\ndescripton: y\n" + y)
    _, findings = validate.validate(str(path), platforms=("codalab",), replay=False)
    schema = [f for f in findings if f.rule == "schema"]
    assert [(f.where, f.message) for f in schema] == [
        ("(top level)", "Additional properties are not allowed ('descripton', 'titel' were unexpected)")]
    assert schema[0].fix.startswith("did you mean titel -> title, descripton -> description? remove the key")


@pytest.mark.parametrize("drop, message", [
    ("leaderboard", "leaderboard is required: its label and its columns (the keys of the scores the program "
                    "writes)"),
    ("pages", "pages is required: the page names overview, evaluation, terms and data, each mapped to a file "
              "under pages/")])
def test_a_missing_key_of_task_yaml_gets_its_own_sentence(tmp_path, drop, message):
    make_toy(tmp_path)
    path = tmp_path / "bundles" / "toy" / "task.yaml"
    lines = path.read_text().splitlines(True)
    start = next(i for i, line in enumerate(lines) if line.startswith(drop + ":"))
    end = next((i for i in range(start + 1, len(lines)) if lines[i][:1] not in (" ", "\n", "")), len(lines))
    path.write_text("".join(lines[:start] + lines[end:]))
    with pytest.raises(taskdef.TaskDefinitionError) as info:
        taskdef.load_task("toy", {"dev": str(tmp_path / "gold" / "dev"), "test": str(tmp_path / "gold" / "test")},
                          bundles_dir=tmp_path / "bundles")
    assert str(info.value).endswith(message), str(info.value)


def test_mistyped_keys_of_task_yaml_get_the_closest_known_ones(tmp_path):
    make_toy(tmp_path)
    path = tmp_path / "bundles" / "toy" / "task.yaml"
    path.write_text("titel: x\ndescripton: y\n" + path.read_text())
    with pytest.raises(taskdef.TaskDefinitionError) as info:
        taskdef.load_task("toy", {"dev": str(tmp_path / "gold" / "dev"), "test": str(tmp_path / "gold" / "test")},
                          bundles_dir=tmp_path / "bundles")
    assert str(info.value).startswith("%s: unknown keys ['descripton', 'titel'] (allowed: [" % path)
    assert str(info.value).endswith("]); did you mean titel -> title, descripton -> description?")
