#!/usr/bin/env bash
# This competition's CI, every step of it. .github/workflows/competition.yml only checks the repository out, sets up
# Python and runs these steps; run them from anywhere on your machine to see what CI will do:
#
#   ci/competition.sh install            pip-installs codalab-bundles ($CODALAB_BUNDLES_SPEC) into $PYTHON
#   ci/competition.sh check              builds every task of this folder into dist/ (replaying each phase's
#                                        sample submission), validates each bundle, and replays each phase's sample
#                                        as Codabench's worker runs it
#   ci/competition.sh publish [--new] [--accept]
#                                        check, then brings the Codabench competition of each task (codabench.json
#                                        says which) up to date: codalab-bundles publish BUNDLE --update ID --apply
#
# Settings, read from the environment (on GitHub: the repository's variables, and its secret CODABENCH_TOKEN):
#   CODALAB_BUNDLES_SPEC   what `install` asks pip for (default: the release that wrote this file, DEFAULT_SPEC
#                          below); e.g. a wheel's path or URL, or git+https://HOST/OWNER/REPO@TAG
#   PYTHON                 the Python that runs codalab-bundles (default: python3)
#   CODABENCH_URL          the Codabench site (default: codabench.json's "server", else https://www.codabench.org)
#   CODABENCH_TOKEN        the API token of the organizer's Codabench account; publish only; never printed
#   CODABENCH_NEW=true     as --new: a task that codabench.json does not list is published as a new competition
#   CODABENCH_ACCEPT=true  as --accept: record this build's scoring programs and data as the site's (see below)
#   CODABENCH_ALLOW_HTTP=1 lets publish talk plain http to a site that is not this machine (the token would cross
#                          the network unencrypted); https, or http to this machine, need nothing
#
# codabench.json, in this folder, records the competition of each task on the site: {"server": URL,
# "competitions": {TASK: {"id": ID, "fingerprint": {...}}}}. `publish --new` writes it for a task it publishes as a
# new competition; commit it. The fingerprint is the SHA-256 of what `publish --update` cannot change on a live
# competition (the scoring program, the gold, the public data and starting kits, the logo, and competition.yaml's
# other settings): when one of them differs from what was published, that task is not updated and publish fails,
# naming it. Change it on the site (its editor), or publish a new competition, then run `publish --accept`.
#
# Exit status: 0 done; 1 done, with something for you to fix (a check that failed, changes the site cannot take,
# codabench.json to commit); 2 could not run (no token, no tool, a setting that contradicts codabench.json).
#
# Written by `codalab-bundles new` (release @VERSION@). It is yours to edit: `new` writes it only when there is none.
set -eu
set -o pipefail
set +x  # never trace: the token is in the environment

DEFAULT_SPEC='@SPEC@'
DEFAULT_SERVER='https://www.codabench.org'
PYTHON=${PYTHON:-python3}
HERE=$(cd "$(dirname "$0")/.." && pwd)
cd "$HERE"
RECORD=codabench.json
FAILED=()

on_github() { [ "${GITHUB_ACTIONS:-}" = true ]; }
say() { printf '%s\n' "$*"; }
problem() {  # a failure that does not stop the other tasks: said now, and again in the summary
    FAILED+=("$*")
    if on_github; then say "::error::$*"; else say "ERROR: $*" >&2; fi
}
die() {  # die STATUS MESSAGE
    local status=$1; shift
    if on_github; then say "::error::$*"; else say "ci/competition.sh: $*" >&2; fi
    exit "$status"
}
group() { if on_github; then say "::group::$*"; else say "== $*"; fi; }
endgroup() { if on_github; then say "::endgroup::"; fi; }
tool() { "$PYTHON" -m codalab_bundles "$@"; }
yes_() { case "${1:-}" in true | 1 | yes) return 0 ;; *) return 1 ;; esac; }

# The bookkeeping of codabench.json, in Python (the interpreter codalab-bundles runs in; PyYAML comes with it).
helper() {
    "$PYTHON" - "$@" <<'PY'
import hashlib, json, os, sys, zipfile
import yaml

RECORD = "codabench.json"
what, args = sys.argv[1], sys.argv[2:]


def load():
    if not os.path.exists(RECORD):
        return {}
    with open(RECORD, encoding="utf-8") as handle:
        try:
            record = json.load(handle)
        except ValueError as exc:
            sys.exit("%s is not JSON: %s" % (RECORD, exc))
    if not isinstance(record, dict) or not isinstance(record.get("competitions", {}), dict):
        sys.exit('%s: expected {"server": URL, "competitions": {TASK: {"id": ID, ...}}}' % RECORD)
    return record


def save(record):
    with open(RECORD, "w", encoding="utf-8") as handle:
        json.dump(record, handle, indent=1, sort_keys=True)
        handle.write("\n")


# What `publish --update` compares and can change: these settings of competition.yaml (and the files of the pages
# and terms), and the phase settings the installed codalab-bundles updates; everything else is in the fingerprint.
CARRIED = ("title", "description", "terms", "pages", "phases", "leaderboards")
try:
    from codalab_bundles.site.live_update import PHASE_FIELDS
    PHASE_CARRIED = ("start", "end") + tuple(key for key, _ in PHASE_FIELDS)
except (ImportError, ValueError, TypeError):
    PHASE_CARRIED = ("name", "description", "start", "end", "max_submissions_per_day", "max_submissions",
                     "execution_time_limit")


def fingerprint(bundle):
    """{"files": {name: SHA-256}, "settings": {where: value}}: what publish --update cannot change."""
    with zipfile.ZipFile(bundle) as archive:
        spec = yaml.safe_load(archive.read("competition.yaml").decode("utf-8"))
        texts = set([spec.get("terms")] + [page.get("file") for page in spec.get("pages") or []])
        files = dict((name, "sha256:" + hashlib.sha256(archive.read(name)).hexdigest()[:16])
                     for name in archive.namelist()
                     if name != "competition.yaml" and name not in texts and not name.endswith("/"))
    settings = dict((key, value) for key, value in spec.items() if key not in CARRIED)
    for number, phase in enumerate(spec.get("phases") or [], 1):
        settings.update(("phase %d %s" % (number, key), value) for key, value in phase.items()
                        if key not in PHASE_CARRIED)
    for number, board in enumerate(spec.get("leaderboards") or [], 1):
        # the columns are compared by publish --update (and refused once the competition has submissions)
        settings.update(("leaderboard %d %s" % (number, key), value) for key, value in board.items()
                        if key != "columns")
    return {"files": files, "settings": json.loads(json.dumps(settings, default=str))}


if what == "server":  # the site: codabench.json's, $CODABENCH_URL, or the default; a contradiction is an error
    recorded, given = load().get("server"), os.environ.get("CODABENCH_URL", "").strip()
    if recorded and given and recorded.rstrip("/") != given.rstrip("/"):
        sys.exit("CODABENCH_URL is %s but %s records the competitions of %s: set CODABENCH_URL to that site, or "
                 "edit %s to move to another site" % (given, RECORD, recorded, RECORD))
    print((recorded or given or args[0]).rstrip("/"))
elif what == "id":  # the task's competition id, or nothing
    entry = load().get("competitions", {}).get(args[0]) or {}
    print(entry.get("id", "") if isinstance(entry, dict) else "")
elif what == "phases":  # how many phases the bundle has
    with zipfile.ZipFile(args[0]) as archive:
        print(len(yaml.safe_load(archive.read("competition.yaml").decode("utf-8")).get("phases") or []))
elif what == "changed":  # what the update cannot carry and differs from what was published, one line each
    entry = load().get("competitions", {}).get(args[0]) or {}
    before, now = entry.get("fingerprint") or {}, fingerprint(args[1])
    for part, shown in (("files", "file %s"), ("settings", "setting %s")):
        old, new = before.get(part) or {}, now[part]
        for name in sorted(set(old) | set(new)):
            if name not in new:
                print((shown + " (removed)") % name)
            elif name not in old:
                print((shown + " (added)") % name)
            elif old[name] != new[name]:
                print(shown % name + (" (changed)" if part == "files" else
                                      " (%s, was %s)" % (json.dumps(new[name]), json.dumps(old[name]))))
elif what == "record":  # record TASK BUNDLE SERVER [ID]: the task's competition and this build's fingerprint
    task, bundle, server = args[:3]
    record = load()
    record["server"] = server
    entry = record.setdefault("competitions", {}).setdefault(task, {})
    if len(args) > 3:
        entry["id"] = int(args[3])
    entry["fingerprint"] = fingerprint(bundle)
    save(record)
elif what == "published":  # the competition id in publish --json's answer
    try:
        print(int(json.loads(args[0])["id"]))
    except (ValueError, KeyError, TypeError):
        sys.exit(1)
PY
}

tasks() {
    local found=() path
    for path in bundles/*/task.yaml; do
        [ -f "$path" ] && found+=("$(basename "$(dirname "$path")")")
    done
    [ ${#found[@]} -gt 0 ] || die 2 "no task in $HERE/bundles/ (each task is bundles/NAME/task.yaml)"
    printf '%s\n' "${found[@]}"
}

install() {
    local spec=${CODALAB_BUNDLES_SPEC:-$DEFAULT_SPEC}
    group "install $spec"
    if ! "$PYTHON" -m pip install --disable-pip-version-check "$spec"; then
        endgroup
        die 2 "pip could not install '$spec'. Set CODALAB_BUNDLES_SPEC (on GitHub: a repository variable) to where your codalab-bundles comes from: a wheel's path or URL, git+https://HOST/OWNER/REPO@TAG, or a release on your package index"
    fi
    endgroup
    tool --version
}

check() {
    local task phase phases
    "$PYTHON" -c 'import codalab_bundles' 2>/dev/null \
        || die 2 "codalab-bundles is not installed for $PYTHON: run 'ci/competition.sh install' first"
    tasks >/dev/null
    group "build every task"
    if ! tool build "$HERE"; then
        endgroup
        die 1 "the build failed (above): nothing was validated or published"
    fi
    endgroup
    for task in $(tasks); do
        group "validate dist/$task.zip"
        tool validate "dist/$task.zip" || problem "validate dist/$task.zip: findings to change (above)"
        endgroup
        phases=$(helper phases "dist/$task.zip")
        for phase in $(seq 1 "$phases"); do
            group "replay dist/$task.zip --phase $phase"
            tool replay "dist/$task.zip" --phase "$phase" || problem "replay dist/$task.zip --phase $phase: the sample submission did not finish (above)"
            endgroup
        done
    done
}

publish() {
    local new=false accept=false arg server task id answer status changed http=()
    yes_ "${CODABENCH_NEW:-}" && new=true
    yes_ "${CODABENCH_ACCEPT:-}" && accept=true
    yes_ "${CODABENCH_ALLOW_HTTP:-}" && http=(--allow-http)
    for arg in "$@"; do
        case $arg in
            --new) new=true ;;
            --accept) accept=true ;;
            *) die 2 "publish takes --new and --accept, not '$arg'" ;;
        esac
    done
    if [ -z "${CODABENCH_TOKEN:-}" ]; then
        die 2 "publish needs CODABENCH_TOKEN, the API token of the organizer's Codabench account (its profile page on the site). On GitHub: add it as the repository secret CODABENCH_TOKEN (Settings, Secrets and variables, Actions). On your machine: export it, and never commit it"
    fi
    if on_github; then echo "::add-mask::$CODABENCH_TOKEN"; fi  # the runner hides it in the log from here on
    server=$(helper server "$DEFAULT_SERVER") || exit 2
    export CODABENCH_URL=$server CODABENCH_TOKEN
    check
    if [ ${#FAILED[@]} -gt 0 ]; then
        summary "the check failed: nothing was published"
    fi
    for task in $(tasks); do
        id=$(helper id "$task") || exit 2
        if [ -z "$id" ]; then
            if [ "$new" != true ]; then
                problem "$task: $RECORD records no competition of it on $server; publish it once as a new competition with 'ci/competition.sh publish --new' (on GitHub: run the workflow by hand with 'new' ticked), then commit $RECORD"
                continue
            fi
            group "publish dist/$task.zip as a new competition on $server"
            status=0
            answer=$(tool publish "dist/$task.zip" --json ${http[@]+"${http[@]}"}) || status=$?
            say "$answer"
            endgroup
            if [ "$status" -gt 1 ] || ! id=$(helper published "$answer"); then
                problem "$task: publish failed (above): nothing recorded in $RECORD (if the message above says the site is still unpacking the bundle, look at your competitions on the site before publishing again)"
                continue
            fi
            helper record "$task" "dist/$task.zip" "$server" "$id"
            say "$task: competition $id made on $server (unpublished: look at it, then publish it on the site): $server/competitions/$id/"
            [ "$status" -eq 0 ] || problem "$task: the site stored phases that differ from the bundle (above): competition $id"
            continue
        fi
        changed=$(helper changed "$task" "dist/$task.zip") || exit 2
        if [ -n "$changed" ] && [ "$accept" != true ]; then
            problem "$task: competition $id was not updated: these differ from what was published, and publish --update cannot change them on a live competition: $(printf '%s' "$changed" | paste -sd ';' - | sed 's/;/; /g'). Change them on the site (its editor), or publish a new competition (remove $task from $RECORD, then publish --new); then run publish --accept to record this build as the site's"
            continue
        fi
        group "publish dist/$task.zip --update $id --apply"
        status=0
        tool publish "dist/$task.zip" --update "$id" --apply ${http[@]+"${http[@]}"} || status=$?
        endgroup
        if [ "$status" -ne 0 ]; then
            problem "$task: competition $id: $([ "$status" -eq 1 ] && echo "some changes cannot be made safely (marked ! above; the others were made): make them in the site's editor, or publish a new competition" || echo "the update failed (above)")"
            continue
        fi
        # read back: the live competition must now be the bundle
        if ! tool publish "dist/$task.zip" --update "$id" ${http[@]+"${http[@]}"} >/dev/null; then
            problem "$task: competition $id still differs from the bundle after the update: run 'codalab-bundles publish dist/$task.zip --update $id' to see how"
            continue
        fi
        say "$task: competition $id is the bundle: $server/competitions/$id/"
        if [ -n "$changed" ]; then
            helper record "$task" "dist/$task.zip" "$server"
            say "$task: recorded this build's scoring program, data and settings as the site's (--accept)"
        fi
    done
    if [ -f "$RECORD" ] && [ -n "$(git status --porcelain -- "$RECORD" 2>/dev/null || echo untracked)" ]; then
        say "$RECORD, as it now is:"
        cat "$RECORD"
        if on_github && [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
            # shellcheck disable=SC2016  # the backquotes are Markdown's
            printf 'Commit this %s to the repository (the competitions it records):\n\n```json\n%s\n```\n' \
                "$RECORD" "$(cat "$RECORD")" >>"$GITHUB_STEP_SUMMARY"
        fi
        problem "$RECORD changed and is not committed: commit it (git add $RECORD && git commit): the next publish reads it from the repository$(on_github && echo ' (its content is above, and in the run summary)')"
    fi
    summary
}

summary() {  # summary [WHY]: exit 1 with the failures listed, or 0
    if [ ${#FAILED[@]} -eq 0 ]; then
        say "ci/competition.sh: done, nothing to fix"
        exit 0
    fi
    say "ci/competition.sh: ${1:-${#FAILED[@]} thing(s) to fix}:"
    local line
    for line in "${FAILED[@]}"; do say "  - $line"; done
    exit 1
}

case "${1:-}" in
    install) install ;;
    check) check; summary ;;
    publish) shift; publish "$@" ;;
    *) sed -n '2,12p' "$0"; exit 2 ;;
esac
