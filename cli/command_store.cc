// account store add: record files kept with the commit they were measured at
// (store/add.h), in the store --store, $ACCOUNT_STORE or the repository names.
#include <fmt/format.h>

#include <boost/program_options.hpp>
#include <iostream>

#include "add.h"
#include "commands.h"
#include "file_options.h"
#include "store.h"

namespace account {

namespace po = boost::program_options;

namespace {

int store_add(const Args& args) {
  AddRequest request;
  std::string location;
  po::options_description d("account store add --commit REV [options] FILE.jsonl...");
  // clang-format off
  d.add_options()
      ("help,h", "this help")
      ("store", po::value(&location), "the store: an SQLite file, or postgresql://... "
       "(default: $ACCOUNT_STORE, else .account/results.sqlite at the repository's top)")
      ("repo", po::value(&request.repo), "the git repository the commit is in (default: .)")
      ("commit", po::value(&request.commit), "the revision the records were measured at "
       "(default: HEAD); stored as its full SHA with its time, parents and subject")
      ("branch", po::value(&request.branch), "the branch it was measured on")
      ("label", po::value(&request.labels), "KEY=VALUE kept with the records (repeatable)");
  // clang-format on
  po::variables_map vm = parse_with_files(args, d, &request.files);
  if (vm.count("help")) {
    std::cout << d
              << "\nEvery record is kept once: a record already stored (the same line, by its"
                 "\nhash) is left out, so adding a file twice adds nothing. A bad line, an"
                 "\nunknown revision or a directory that is not a repository stores nothing."
                 "\nExit status: 0 stored, 1 nothing stored (one line says why).\n";
    return 0;
  }
  if (request.files.empty())
    throw UsageError{"store add: needs at least one record file (try account store add --help)"};
  std::string error;
  std::optional<PreparedAdd> prepared = prepare_add(request, &error);
  if (!prepared) throw UsageError{"store add: " + error};
  std::optional<std::string> where = store_location(location, request.repo, &error);
  if (!where) throw UsageError{"store add: " + error};
  std::unique_ptr<Store> store = open_store(*where, &error);
  if (!store) throw UsageError{"store add: " + error};
  std::optional<size_t> added = store->add(prepared->batches, &error);
  if (!added) throw UsageError{"store add: " + error};
  std::cout << fmt::format("stored {} of {} records at {} in {}", *added, prepared->records,
                           prepared->commit.sha.substr(0, 12), printable_location(*where));
  if (*added < prepared->records)
    std::cout << fmt::format(" ({} already stored)", prepared->records - *added);
  std::cout << "\n";
  return 0;
}

}  // namespace

int command_store(const Args& args) {
  if (args.empty()) {
    std::cerr << "usage: account store add [options] FILE.jsonl...   (account store --help)\n";
    return 1;
  }
  // add is the only subcommand: its help is the command's.
  if (args[0] == "--help" || args[0] == "-h") return store_add({"--help"});
  Args rest(args.begin() + 1, args.end());
  if (args[0] == "add") return store_add(rest);
  throw UsageError{fmt::format("store: unknown subcommand '{}' (known: add)", args[0])};
}

}  // namespace account
