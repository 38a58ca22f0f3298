/// Command lines of the form `account CMD [FILES...] [options]`: the options
/// shown in --help, plus every positional argument collected as a file.
#pragma once

#include <boost/program_options.hpp>
#include <string>
#include <vector>

#include "commands.h"

namespace account {

boost::program_options::variables_map parse_with_files(
    const Args& args, const boost::program_options::options_description& options,
    std::vector<std::string>* files);

/// The files a command reads: `files`, or standard input ("-") when none.
std::vector<std::string> read_files(const std::vector<std::string>& files);

}  // namespace account
