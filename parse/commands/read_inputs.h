/// Reading the inputs of report and compare: every file opened before any is
/// read, bad lines named, and the status the reading alone calls for.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "aggregate.h"
#include "reader.h"
#include "sinks.h"
#include "timeline_spool.h"

namespace account {

/// One input and the Aggregator its records go to.
struct Input {
  std::unique_ptr<LineReader> reader;
  Aggregator* into = nullptr;
};

/// Reads every input into its Aggregator, naming bad lines on `err`. Returns
/// the exit status the reading alone calls for. `spool`: where the records'
/// timelines wait (pages read each chart's back).
int read_inputs(std::vector<Input>& inputs, bool strict, const MessageSink& err,
                TimelineSpool* spool = nullptr);

/// One line on stderr when unlabelled runs were grouped by their command line.
void note_unlabelled(const std::vector<std::vector<Operation>*>& all, const MessageSink& err);

/// Opens every input before reading any, so a wrong path fails at once.
/// With `missing`, a file that does not exist is no error: its Input has no
/// reader and its entry in *missing is true.
bool open_all(const std::vector<std::string>& files, std::vector<Input>* inputs,
              const MessageSink& err, std::vector<bool>* missing = nullptr);

}  // namespace account
