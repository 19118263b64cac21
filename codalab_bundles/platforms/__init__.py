"""What Codabench and CodaLab do, read from their source and written once: what Codabench's import stores
(codabench_model), how CodaLab ranked a leaderboard (codalab_leaderboard, python27_order), how each worker reads a
program's scores (score_parsing), Codabench's fact sheets and their answers (fact_sheet) and the JSON Schemas of
both bundle formats (schemas/). Every other part of the
package asks these modules rather than restating the platforms' rules."""
