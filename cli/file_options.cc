#include "file_options.h"

namespace account {

namespace po = boost::program_options;

po::variables_map parse_with_files(const Args& args, const po::options_description& options,
                                   std::vector<std::string>* files) {
  po::options_description hidden;
  hidden.add_options()("files", po::value(files), "record files");
  po::options_description all;
  all.add(options).add(hidden);
  po::positional_options_description positional;
  positional.add("files", -1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
  po::notify(vm);
  return vm;
}

std::vector<std::string> read_files(const std::vector<std::string>& files) {
  return files.empty() ? std::vector<std::string>{"-"} : files;
}

}  // namespace account
