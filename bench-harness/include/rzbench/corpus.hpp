// Reader and writer of corpus files (*.bbc), docs/CORPUS_FORMAT.md version 1.
#pragma once
#include "rzbench/dataset.hpp"

#include <stdexcept>
#include <string>

namespace rzbench {

struct CorpusError : std::runtime_error {
   using std::runtime_error::runtime_error;
};

// Throws CorpusError with the file name and the problem on any malformed input.
Dataset read_corpus(const std::string &path);
Dataset parse_corpus(const Bytes &file, const std::string &path_for_messages);

Bytes serialize_corpus(const Dataset &d);
void write_corpus(const Dataset &d, const std::string &path);

} // namespace rzbench
