//===- Options.cpp - the command line of a tool without LLVM --------------===//

#include "mxgemm/Support/Options.h"
#include "mxgemm/Support/Tool.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

using namespace mxgemm;

ToolOptions::ToolOptions(std::string tool, std::string usage, std::string about,
                         std::vector<Option> options, std::string epilogue)
    : tool(std::move(tool)), usage(std::move(usage)), about(std::move(about)),
      epilogue(std::move(epilogue)), options(std::move(options)) {
  this->options.push_back({"--help", nullptr, "print this help and exit"});
  this->options.push_back({"--version", nullptr, "print the version and exit"});
}

void ToolOptions::fail(int code, const std::string &message) const {
  std::fprintf(stderr, "%s: error: %s\n", tool.c_str(), message.c_str());
  std::exit(code);
}

void ToolOptions::usageError(const std::string &message) const {
  std::fprintf(stderr, "%s: error: %s\nusage: %s (--help lists the options)\n",
               tool.c_str(), message.c_str(), usage.c_str());
  std::exit(ExitUsage);
}

void ToolOptions::parse(int argc, char **argv) {
  if (argc < 2)
    usageError("no arguments");
  for (int i = 1; i < argc; ++i) {
    const Option *option = nullptr;
    for (const Option &o : options)
      if (argv[i] == std::string(o.name))
        option = &o;
    if (!option)
      usageError(std::string("unknown option '") + argv[i] + "'");
    if (option->value && i + 1 >= argc)
      usageError(std::string(option->name) + " needs a value");
    values[option->name] = option->value ? argv[++i] : "";
  }
  if (has("--help")) {
    std::printf("usage: %s\n\n%s\n\noptions:\n", usage.c_str(), about.c_str());
    size_t width = 0;
    for (const Option &o : options)
      width = std::max(width, std::string(o.name).size() + 1 +
                                  std::string(o.value ? o.value : "").size());
    for (const Option &o : options) {
      std::string left =
          std::string(o.name) + (o.value ? " " : "") + (o.value ? o.value : "");
      std::printf("  %-*s  %s\n", int(width), left.c_str(), o.help);
    }
    std::printf("\n%s\n", epilogue.c_str());
    std::exit(ExitSuccess);
  }
  if (has("--version")) {
    std::printf("%s\n", getVersionText().c_str());
    std::exit(ExitSuccess);
  }
}

std::string ToolOptions::text(const std::string &name,
                              const std::string &fallback) const {
  auto it = values.find(name);
  return it == values.end() ? fallback : it->second;
}

int64_t ToolOptions::integer(const std::string &name,
                             std::optional<int64_t> fallback) const {
  auto it = values.find(name);
  if (it == values.end()) {
    if (!fallback)
      usageError(name + " is required");
    return *fallback;
  }
  char *end = nullptr;
  errno = 0;
  long long v = std::strtoll(it->second.c_str(), &end, 10);
  if (it->second.empty() || *end || errno)
    usageError(name + " needs an integer, got '" + it->second + "'");
  return v;
}
