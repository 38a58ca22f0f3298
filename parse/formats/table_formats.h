/// What the table formats (text table, CSV, JSON, Markdown) share: each is a
/// TableFormat in a file of its own (formats/text_table.cc, csv.cc, json.cc,
/// markdown.cc) and made by the registry (formats/registry.cc).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "formats/format.h"
#include "table.h"

namespace account {

std::unique_ptr<OutputFormat> make_text_table_format();
std::unique_ptr<OutputFormat> make_csv_format();
std::unique_ptr<OutputFormat> make_json_format();
std::unique_ptr<OutputFormat> make_markdown_format();

/// CSV and JSON: the columns in order, those marked machine_last moved to the end.
std::vector<size_t> machine_columns(const Table& t);
/// A cell for the machine formats (CSV, JSON): full precision, base units;
/// `quote` renders text, `missing` stands for an empty cell.
std::string machine_value(const Cell& cell, std::string (*quote)(const std::string&),
                          const char* missing);
/// The footnotes after a blank line, as the text table and Markdown end.
std::string notes_text(const Table& t);
/// `s` without its trailing spaces.
std::string rstrip(std::string s);

}  // namespace account
