/// The pieces every table of figures is built from (the report's tables and
/// compare's): the label columns, the figure columns with their cells, the
/// Exit and Runs columns, and the extra columns `--columns` adds.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aggregate.h"
#include "metric.h"
#include "table.h"

namespace account {

/// Columns that are off by default, chosen with `--columns +NAME,...`: the
/// figures whose registry entry has a column option (figures.h), each in its
/// section of the text table and Markdown and after every other column in CSV
/// and JSON (the default header stays a prefix), and "+exit": how the runs
/// ended (`failed_runs`, `exit`), shown without it when a run failed.
struct ExtraColumns {
  std::vector<Metric> figures;
  bool exit = false;

  bool shows(const Figure& f) const;
};

/// Parses a comma list of +NAME items ("+anon,+heap,+exit"). On failure returns nullopt and
/// puts one line naming the bad item and the known names in *error.
std::optional<ExtraColumns> parse_columns(std::string_view spec, std::string* error);
/// --columns' help, for report and compare alike.
const std::string& columns_help();

Column text_column(std::string key, std::string heading, std::string markdown, size_t sep = 2);
Column number_column(std::string key, std::string heading1, std::string heading2,
                     std::string markdown, size_t width, size_t sep, int decimals);
/// A column for CSV and JSON only (three decimals).
Column data_column(std::string key);
/// Runs: in the text table only when `in_table` (some operation ran more than once).
Column runs_column(bool in_table);
/// How many processes a row's Copied and Malloc leave out (they ran without
/// the shim), the count the † note gives: a CSV and JSON column after Runs in
/// report's and compare's tables (the text table says it in the note).
Column without_shim_column();
/// Its cell for the median `m` of `runs`: blank where no run is counted.
Cell without_shim_cell(const std::vector<RunFigures>& runs, const RunFigures& m);
/// `processes_malloc_unseen` (CSV and JSON only, after processes_without_shim):
/// processes whose malloc was not the shim's, summed over the runs. Present
/// only when some run of `ops` has one, so the usual header is unchanged.
bool any_malloc_unseen(const std::vector<Operation>& ops);
Column malloc_unseen_column();
Cell malloc_unseen_cell(const std::vector<RunFigures>& runs, const RunFigures& m);

/// The Test and Operation columns, laid out as the Monotone seed's table.
void add_label_columns(Table& t);
/// "test/op", or "op" without a test.
std::string operation_name(const std::string& test, const std::string& op);

/// The figures a table shows, in their column order.
std::vector<Metric> figure_metrics(const ExtraColumns& extra);
/// The figure columns (figure_metrics), the peaks under the "Maximum (MiB)"
/// span; returns the index of the first.
size_t add_figure_columns(Table& t, const ExtraColumns& extra);
/// A row's figure cells. A figure nobody counted is unknown ("–"), never 0.
/// With `notes`, one some processes were not counted in gets a mark, and
/// `notes` a footnote naming `label` and saying how many.
void add_figures(Row& r, const RunFigures& f, const ExtraColumns& extra,
                 std::vector<std::string>* notes = nullptr, const std::string& label = "");
/// Where no run is counted (every run failed) the figures are blank, not zero.
void add_blank_figures(Row& r, const ExtraColumns& extra);

/// How the runs ended: the Exit column and `failed_runs`, after every other
/// column in CSV and JSON. Present with +exit, or whenever a run failed; then a
/// footnote (add_failed_note) says what failed means and what the figures hold.
bool exit_columns_shown(const ExtraColumns& extra, bool failed);
void add_exit_columns(Table& t);
void add_exit_cells(Row& r, const Operation& o);
/// The operations a table shows, each with the label its notes name it by.
using LabelledOperations = std::vector<std::pair<std::string, const Operation*>>;
/// Then a line for each operation with failed runs, saying which runs its
/// figures are of: "clone/clone: 2 of 3 failed: exit 128; its figures are of
/// the 1 ok run."
void add_failed_note(Table& t, bool include_failed, const LabelledOperations& ops);
/// Each operation labelled "test/op" (operation_name).
LabelledOperations labelled(const std::vector<Operation>& ops);

/// The figures without a table column (wall), as CSV and JSON fields.
std::vector<Metric> field_metrics();

/// Whether some operation ran more than once.
bool any_repeated(const std::vector<Operation>& ops);

}  // namespace account
