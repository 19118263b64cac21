"""``new``: its options, help and main (the command line of authoring/new_task.py).

    codalab-bundles new NAME [--kind KIND] [--gold-dir DIR] [--set FIELD=VALUE]... [--keys K,...] [--dir FOLDER]
"""
import argparse
import sys
import textwrap
from pathlib import Path

from .. import resources
from . import ci_workflow, generic_kits, new_task


def new_main(argv, how):
    """``new``; ``how.folder`` is where the task goes without --dir (None: the current folder)."""
    command, default_folder = how.command, how.folder
    parser = argparse.ArgumentParser(prog="%s new" % command, description=textwrap.fill(
        "Start a competition of your own: write the files of a task (task.yaml, pages, logo, sample data or your "
        "gold split into phases, metric card, the derive hooks of its public data and starting kit) scored by a "
        "generic scoring program configured by data, into a competition folder. It writes files only, after "
        "checking that your gold builds (the public data and starting kit are derived from it, and the kit's "
        "sample submission is scored against it); a gold that would not build is refused, with nothing written. "
        "Then build the bundles with 'build' (which replays each starting kit's sample), and check them with "
        "'validate' and 'replay'. Edit bundles/NAME/task.yaml and scoring_programs/NAME/scoring.json to adapt the "
        "task, and rebuild. The folder also gets its CI, where it has none: ci/competition.sh (check: build, "
        "validate and replay every task; publish: bring each task's competition on Codabench up to date) and the "
        "GitHub Actions workflow .github/workflows/competition.yml that runs it (a file already there is kept as "
        "it is).", 100), formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example:\n  %s new sentiment --kind classification --gold-dir my-gold/ --dir my-competition\n"
               "  cd my-competition && %s build && %s validate dist/sentiment.zip && %s replay dist/sentiment.zip\n\n"
               "gold files by kind (the generic metric card, %s, has the details):\n"
               "  classification  CSV with columns id,label (other columns, such as text, are published)\n"
               "  multilabel      CSV with columns id,labels (labels joined by |)\n"
               "  spans           CSV with columns spans,text (and id), spans a list such as [4, 5, 6], or lines\n"
               "                  <id><TAB>[offsets] (then participants get only the ids)\n"
               "  ranking         JSON {query id: correct option id} or CSV id,answer, with options.json beside it:\n"
               "                  {query id: [option ids]}, every query's options, which participants rank;\n"
               "                  or TREC qrels lines (qid iter docid grade; any other extension, e.g. qrels.txt),\n"
               "                  with topics.tsv (qid<TAB>text) and options.json (candidates) optional beside it\n"
               "  text            JSON {id: text or [texts]}, a SQuAD dataset (v1.1 or v2.0), or CSV/TSV id,answer\n"
               "                  (several rows of one id: several references); EM/F1, BLEU, chrF, ROUGE\n"
               "  regression      CSV or TSV with columns id,score (numbers); Pearson, Spearman, MAE, RMSE, R2, QWK\n"
               "  sequence        CoNLL columns (token ... tag, blank lines between sentences) or JSON lines\n"
               "                  {\"id\", \"tokens\", \"tags\"}; chunk F1 as conlleval, per type, token accuracy\n"
               "  custom          no --gold-dir: a sample gold.csv (id,text,label) that the skeleton\n"
               "                  scoring_programs/NAME/evaluate.py scores (accuracy); edit both, then rebuild\n"
               "  (any kind: CSV or TSV, any column names: --set id_column=ID --set label_column=Stance)\n\n"
               "exit status: 0 the task was written; 2 nothing was written (a bad argument, or a gold that would "
               "not build)" % (command, command, command, command, resources.GENERIC / "README.md"))
    parser.add_argument("name", help="the task's name, e.g. sentiment (names its folders and dist/NAME.zip)")
    parser.add_argument("--kind", choices=generic_kits.KINDS + (new_task.CUSTOM,),
                        help="classification (id,label CSV or TSV), multilabel (id,labels), spans (character "
                             "offsets), ranking (multiple choice, or TREC qrels), text (references: JSON, SQuAD, "
                             "CSV/TSV), regression (id,score), sequence (CoNLL columns or JSON lines); without it, "
                             "the kind the gold of --gold-dir says it is (numbers: regression, tags: sequence, "
                             "qrels: ranking, SQuAD: text), named in a note; custom: when no kind fits, a "
                             "skeleton evaluate.py of your own to edit (it scores its sample gold as written)")
    parser.add_argument("--gold-dir", help="your gold: dev/ and test/ folders, or one file split by id into "
                                           "development (about 20%%) and test (default: synthetic sample data)")
    parser.add_argument("--dir", help="the competition folder to write into, created if need be (default: %s)"
                        % ("the current folder" if default_folder is None else default_folder))
    parser.add_argument("--title", help="the competition's title (default: from the name)")
    parser.add_argument("--keys", help="score keys, comma-separated, the first ranking (default: %s)" % "; ".join(
        "%s: %s" % (k, ",".join(v)) for k, v in sorted(new_task.DEFAULT_KEYS.items())))
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE", dest="settings",
                        help="a scoring.json field of the kind, known before your gold is read (repeatable; "
                             "VALUE is JSON, or text): e.g. --set id_column=ID --set label_column=Stance, "
                             "--set 'label_range=[0, 3]', --set 'subset_labels=[\"FAVOR\", \"AGAINST\"]', "
                             "--set docstart=token; the fields are in the generic metric card")
    parser.add_argument("--code-submission", action="store_true",
                        help="participants upload a model (model.py with load and predict) that the platform runs "
                             "on the hidden inputs, instead of predictions (classification and regression); "
                             "writes a baseline model and the starting kit that runs both steps offline")
    parser.add_argument("--no-ci", action="store_true", help="do not write the folder's CI files (%s, which "
                        "runs %s: check on every push, publish on a tag v*), which are written only where there "
                        "are none" % (ci_workflow.WORKFLOW.as_posix(), ci_workflow.SCRIPT.as_posix()))
    args = parser.parse_args(argv)
    keys = [k.strip() for k in args.keys.split(",") if k.strip()] if args.keys else None
    folder = Path(args.dir if args.dir else default_folder if default_folder is not None else ".").resolve()
    notes = []
    try:
        settings = dict(new_task.parse_setting(text) for text in args.settings)
        own = default_folder is not None and folder == Path(default_folder).resolve()  # this repository's tasks
        written = new_task.create(args.name, args.kind, args.gold_dir, args.title, keys, root=folder,
                                  command=command, notes=notes, settings=settings, ci=not (args.no_ci or own),
                                  code=args.code_submission)
    except new_task.NewTaskError as exc:
        print("new: %s" % exc, file=sys.stderr)
        return 2
    except OSError as exc:  # a gold file or folder the system will not let us read, a folder we cannot write
        print("new: %s: %s" % (exc.filename or args.gold_dir, exc.strerror or exc), file=sys.stderr)
        return 2
    for path in written:
        print("wrote %s" % new_task.shown_path(path))
    for note in notes:
        print("note: %s" % note)
    if default_folder is not None and folder == Path(default_folder).resolve():  # this repository's own tasks
        print("next: %s --task %s && %s validate dist/%s.zip && %s replay dist/%s.zip" % (
            command, args.name, command, args.name, command, args.name))
    elif folder == Path.cwd():
        print("next: %s build && %s validate dist/%s.zip && %s replay dist/%s.zip" % (
            command, command, args.name, command, args.name))
    else:  # named, not cd'd into: 'python3 build_bundle.py build' alone builds this repository's folder
        bundle = new_task.shown_path(folder / "dist" / ("%s.zip" % args.name))
        print("next: %s build %s && %s validate %s && %s replay %s" % (
            command, new_task.shown_path(folder), command, bundle, command, bundle))
    return 0
