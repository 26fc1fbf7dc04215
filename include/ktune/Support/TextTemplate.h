//===- ktune/Support/TextTemplate.h - {{placeholder}} templates -*- C++ -*-===//
//
// The text the tools fill in (templates/: the dispatch header, the planner
// prompt, the HTML report) is read at run time, so its layout can change
// without rebuilding. A template is text with
//   {{name}}               replaced by the value of `name`;
//   {{#name}}...{{/name}}  a section, kept only when `name`'s value is not
//                          empty (a section tag alone on its line takes the
//                          line with it).
// Rendering is one pass over the template: inserted text (a kernel source,
// a reply) is never scanned for placeholders.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_SUPPORT_TEXTTEMPLATE_H
#define KTUNE_SUPPORT_TEXTTEMPLATE_H

#include "ktune/Support/Error.h"

#include <map>
#include <string>
#include <string_view>

namespace ktune {

/// What a template may hold besides well-formed tags.
struct TextTemplateSyntax {
  /// Names are lower-case letters, digits and '_'; with this, upper-case
  /// letters too.
  bool upperCaseNames = false;
  /// A `{{` that does not open a tag is an error (an unknown placeholder, or
  /// an unterminated one without `}}`) rather than text kept as it is: for
  /// output where a stray `{{` can only be a typo.
  bool strict = false;
};

/// Renders `text` with `values`. Errors name the tag and where it is:
/// "<origin>:<line>", or "line <line>" when `origin` is empty. An unknown
/// name is an error that lists the known ones, so a typo in an edited
/// template cannot go unnoticed; so are a section closed out of order and a
/// section never closed.
Expected<std::string> renderTextTemplate(
    std::string_view text, const std::map<std::string, std::string> &values,
    const std::string &origin = {}, const TextTemplateSyntax &syntax = {});

} // namespace ktune

#endif
