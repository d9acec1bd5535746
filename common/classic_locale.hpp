// Numbers in the "C" locale whatever locale the process has chosen.
//
// dlrmsim writes and reads numbers with printf-style formatting and strtod-style parsing in
// places, which follow the C locale of the thread. The command-line program never changes its
// locale, so those are the "C" locale's; a program that embeds dlrmsim (a Python script that
// called locale.setlocale(locale.LC_ALL, "de_DE.UTF-8")) may have chosen one whose decimal
// separator is a comma, and then 8.5 would be written "8,5" and "0.1 TB/s" read as "0" and
// ",1 TB/s". Every entry point that runs on the embedder's threads holds a ClassicLocaleScope.
#pragma once

#include <locale.h>

namespace dlrmsim {

/// For its lifetime the calling thread uses the "C" locale (uselocale(3): the setting is the
/// thread's own, so nothing is changed for other threads or for the process); the thread's
/// previous setting is restored at the end.
class ClassicLocaleScope {
 public:
  ClassicLocaleScope() : classic_(::newlocale(LC_ALL_MASK, "C", static_cast<locale_t>(nullptr))) {
    if (classic_) previous_ = ::uselocale(classic_);
  }
  ~ClassicLocaleScope() {
    if (!classic_) return;
    ::uselocale(previous_);
    ::freelocale(classic_);
  }
  ClassicLocaleScope(const ClassicLocaleScope&) = delete;
  ClassicLocaleScope& operator=(const ClassicLocaleScope&) = delete;

 private:
  locale_t classic_;
  locale_t previous_ = static_cast<locale_t>(nullptr);
};

}  // namespace dlrmsim
