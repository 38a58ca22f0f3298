/// How a run's figures are gathered from its process records, each by its
/// registry entry's Summed rule (figures.h): a process's figures, and the
/// sums of a run or of a lump of processes. The Aggregator's (aggregate.cc).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "aggregate.h"
#include "figures.h"
#include "record.h"
#include "run_end.h"
#include "saturating.h"

namespace account {

/// One process image's figures, by the registry, and what its run needs of it.
struct ProcFigures {
  int64_t pid = 0;
  int64_t namespace_pid = 0;  // ProcessRecord::namespace_pid
  bool exec = false;
  bool counted = true;         // the shim counted its copies and allocations
  bool malloc_counted = true;  // and its malloc was the shim's (Figure::malloc_counter)
  /// Each figure of the registry (figures.h), by its unit.
  std::array<double, kFigureCount> seconds{};
  std::array<uint64_t, kFigureCount> bytes{};
  uint32_t recorded = 0;  // Known::kWhenPresent figures the record carries (recorded_bit)
  uint64_t start_ns = 0, end_ns = 0;
  RunEnd end;
  std::string command;  // the argv, for unlabelled records only (grouping)
};

/// A process record's figures; `command`: its argv joined, for unlabelled
/// records only (grouping).
ProcFigures figures_of(const ProcessRecord& p, std::string command);
/// A process's figures as a run of that one process.
RunFigures own_figures(const ProcFigures& f);

/// The peak rule (Summed::kPeak) of one figure over a run: the larger of the
/// tree record's sampled concurrent peak, where one exists, and the largest
/// single process's peak.
struct RunPeak {
  uint64_t tree = 0;
  uint64_t largest_process = 0;

  void add_process(uint64_t peak) { largest_process = std::max(largest_process, peak); }
  void merge(const RunPeak& other) {
    tree = std::max(tree, other.tree);
    largest_process = std::max(largest_process, other.largest_process);
  }
  uint64_t value() const { return std::max(tree, largest_process); }
};

/// Each figure of a run as its Summed rule gathers it.
struct FigureSums {
  std::array<double, kFigureCount> seconds{};  // kAddedOverImages: images counted
  std::array<double, kFigureCount> unseen{};   // kAddedOverImages: the tree record's part
  std::array<std::optional<double>, kFigureCount> whole{};  // the tree record's (tree_whole)
  /// kAdded (saturating), kLargest, kAddedOverImages of a count, kTree
  std::array<uint64_t, kFigureCount> bytes{};
  std::array<RunPeak, kFigureCount> peaks{};  // kPeak
  uint32_t recorded = 0;                      // Known::kWhenPresent: some record carried it

  void add(const ProcFigures& f, bool image_counts) {
    recorded |= f.recorded;
    for (const Figure& fig : figures()) {
      size_t i = size_t(fig.metric);
      switch (fig.summed) {
        case Summed::kAddedOverImages:
          if (!image_counts) break;
          if (fig.seconds)
            seconds[i] += f.seconds[i];
          else
            add_saturating(bytes[i], f.bytes[i]);
          break;
        case Summed::kAdded:
          add_saturating(bytes[i], f.bytes[i]);
          break;
        case Summed::kPeak:
          peaks[i].add_process(f.bytes[i]);
          break;
        case Summed::kLargest:
          bytes[i] = std::max(bytes[i], f.bytes[i]);
          break;
        case Summed::kSpan:
        case Summed::kTree:
          break;
      }
    }
  }
  void merge(const FigureSums& o) {
    recorded |= o.recorded;
    for (const Figure& fig : figures()) {
      size_t i = size_t(fig.metric);
      seconds[i] += o.seconds[i];
      if (fig.summed == Summed::kLargest || fig.summed == Summed::kTree)
        bytes[i] = std::max(bytes[i], o.bytes[i]);
      else
        add_saturating(bytes[i], o.bytes[i]);
      peaks[i].merge(o.peaks[i]);
    }
  }
  void set_tree(const TreeRecord& t) {
    for (const Figure& fig : figures()) {
      size_t i = size_t(fig.metric);
      if (fig.tree_peak) peaks[i].tree = fig.tree_peak(t);
      if (fig.tree_unseen) unseen[i] = fig.tree_unseen(t);
      if (fig.tree_whole) whole[i] = fig.tree_whole(t);
      if (fig.tree_counter) {
        std::optional<uint64_t> v = fig.tree_counter(t);
        bytes[i] = v.value_or(0);
        if (v) recorded |= recorded_bit(fig.metric);
      }
    }
  }
};

}  // namespace account
