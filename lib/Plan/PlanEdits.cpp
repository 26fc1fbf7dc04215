//===- PlanEdits.cpp - The source edits a plan asks for -------------------===//
//
// The plan's edits together: none may overlap another, and a site shared by
// several kernels' launchers (a macro's body) is lifted for all of them.
// Rules: docs/plan-validation.md.
//
//===----------------------------------------------------------------------===//
#include "PlanEdits.h"

#include "PlanRules.h"

#include <algorithm>
#include <set>

namespace ktune::plan_edits {

static void addError(std::vector<Error> &errors, std::string where,
                     std::string message) {
  errors.push_back(Error{std::move(message), std::move(where)});
}

std::string quote(std::string_view text) {
  std::string out;
  for (char c : text.substr(0, 80)) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '\'' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7f) {
      static const char *Hex = "0123456789abcdef";
      out += "\\x";
      out += Hex[u >> 4];
      out += Hex[u & 15];
    } else {
      out += c;
    }
  }
  if (text.size() > 80)
    out += "...";
  return "'" + out + "'";
}

void checkOverlaps(std::vector<Edit> &edits, std::vector<Error> &errors) {
  std::stable_sort(edits.begin(), edits.end(),
                   [](const Edit &a, const Edit &b) {
                     if (a.site->file != b.site->file)
                       return a.site->file < b.site->file;
                     return a.site->offset < b.site->offset;
                   });
  for (size_t i = 0; i < edits.size(); ++i) {
    for (size_t j = i + 1; j < edits.size(); ++j) {
      const Edit &a = edits[i], &b = edits[j];
      if (a.site->file != b.site->file ||
          b.site->offset >=
              uint64_t(a.site->offset) + std::max(1u, a.site->length))
        break;
      if (!plan_rules::editsOverlap(*a.site, *b.site))
        continue;
      bool sameEdit = plan_rules::samePlace(*a.site, *b.site) &&
                      a.site->replacement == b.site->replacement;
      // Two candidates of one parameter share a site, or a launch macro's
      // body serves several kernels' parameters of one name.
      bool shared = sameEdit && a.site->shared && a.kernel != b.kernel;
      if (sameEdit && (a.paramPath == b.paramPath ||
                       (shared && a.paramName == b.paramName)))
        continue;
      if (shared) {
        addError(errors, b.where + " (" + plan_rules::location(*b.site) + ")",
                 "this edit is also made by " + a.where + " (" +
                     plan_rules::location(*a.site) + ") for " + a.paramName +
                     "; one edit serves both, so give the parameters one name");
        continue;
      }
      addError(errors, b.where + " (" + plan_rules::location(*b.site) + ")",
               "this edit overlaps the edit of " + a.where + " (" +
                   plan_rules::location(*a.site) +
                   "); one piece of source can be rewritten only once");
    }
  }
}

void checkSharedSites(const std::vector<Edit> &edits,
                      const CandidateSet &candidates,
                      const std::map<std::string, std::string> &candidateOwner,
                      std::vector<Error> &errors) {
  std::set<std::pair<const SourceSite *, std::string>> reported;
  for (const Edit &e : edits) {
    if (!e.site->shared)
      continue;
    for (const auto &c : candidates.candidates) {
      if (c.kernel == e.kernel || candidateOwner.count(c.id))
        continue;
      bool holds =
          std::any_of(c.sites.begin(), c.sites.end(), [&](const SourceSite &s) {
            return plan_rules::samePlace(s, *e.site);
          });
      if (holds && reported.emplace(e.site, c.id).second)
        addError(errors, e.where + " (" + plan_rules::location(*e.site) + ")",
                 std::string(e.site->after.empty()
                                 ? "the site is in the body of a macro that "
                                   "launchers of several kernels expand"
                                 : "the site declares a local constant that "
                                   "every launch of its function reads") +
                     ": one edit serves them all, so lift candidate " +
                     quote(c.id) + " of kernel " + quote(c.kernel) +
                     " too, under the name " + quote(e.paramName));
    }
  }
}

} // namespace ktune::plan_edits
