// The one {{placeholder}} engine behind the dispatch header, the planner
// prompt and the HTML report.
#include "ktune/Support/TextTemplate.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

using namespace ktune;

namespace {

std::string render(std::string_view text,
                   const std::map<std::string, std::string> &values,
                   const TextTemplateSyntax &syntax = {}) {
  auto out = renderTextTemplate(text, values, "t.in", syntax);
  EXPECT_TRUE(out) << out.error().str();
  return out ? *out : std::string();
}

Error failure(std::string_view text,
              const std::map<std::string, std::string> &values,
              const std::string &origin = "t.in",
              const TextTemplateSyntax &syntax = {}) {
  auto out = renderTextTemplate(text, values, origin, syntax);
  EXPECT_FALSE(out) << "rendered: " << *out;
  return out ? Error{} : out.error();
}

} // namespace

TEST(TextTemplate, ReplacesPlaceholders) {
  EXPECT_EQ(render("a {{x}} b {{y_2}}{{x}}", {{"x", "1"}, {"y_2", "Y"}}),
            "a 1 b Y1");
  EXPECT_EQ(render("", {}), "");
  EXPECT_EQ(render("no tags at all\n", {}), "no tags at all\n");
}

TEST(TextTemplate, InsertedTextIsNotScannedAgain) {
  EXPECT_EQ(render("{{x}} {{y}}", {{"x", "{{y}} {{#y}}"}, {"y", "Y"}}),
            "{{y}} {{#y}} Y");
}

TEST(TextTemplate, UnknownNameListsTheKnownOnesAndItsLine) {
  Error e = failure("one\ntwo {{kernal}}\n", {{"kernel", ""}, {"arch", ""}});
  EXPECT_EQ(e.where, "t.in:2");
  EXPECT_EQ(e.message, "unknown placeholder {{kernal}} (known: arch, kernel)");
  // Without an origin the line alone says where.
  EXPECT_EQ(failure("{{x}}", {}, "").where, "line 1");
  EXPECT_NE(failure("{{x}}", {}).message.find("none is known"),
            std::string::npos);
}

TEST(TextTemplate, SectionsAreKeptOnlyWhenTheirValueIsNotEmpty) {
  std::string t = "start\n{{#extra}}\nextra: {{extra}}\n{{/extra}}\nend\n";
  EXPECT_EQ(render(t, {{"extra", "E"}}), "start\nextra: E\nend\n");
  EXPECT_EQ(render(t, {{"extra", ""}}), "start\nend\n");
  // Inline tags keep the text around them.
  EXPECT_EQ(render("a{{#x}}[{{x}}]{{/x}}b", {{"x", "1"}}), "a[1]b");
  EXPECT_EQ(render("a{{#x}}[{{x}}]{{/x}}b", {{"x", ""}}), "ab");
  // Nested: the inner one shows only inside a shown outer one.
  std::string nested = "{{#a}}A{{#b}}B{{/b}}{{/a}}.";
  EXPECT_EQ(render(nested, {{"a", "1"}, {"b", "1"}}), "AB.");
  EXPECT_EQ(render(nested, {{"a", ""}, {"b", "1"}}), ".");
  EXPECT_EQ(render(nested, {{"a", "1"}, {"b", ""}}), "A.");
}

TEST(TextTemplate, UnknownNamesInAHiddenSectionAreStillErrors) {
  Error e = failure("{{#a}}\n{{typo}}\n{{/a}}\n", {{"a", ""}});
  EXPECT_EQ(e.where, "t.in:2");
  EXPECT_NE(e.message.find("{{typo}}"), std::string::npos);
  EXPECT_NE(failure("{{#typo}}{{/typo}}", {}).message.find("{{#typo}}"),
            std::string::npos);
}

TEST(TextTemplate, UnbalancedSectionsAreErrorsWithTheirLine) {
  Error never = failure("x\n{{#a}} x", {{"a", "1"}});
  EXPECT_EQ(never.message, "section {{#a}} is never closed");
  EXPECT_EQ(never.where, "t.in:2");
  Error stray = failure("x {{/a}}", {{"a", "1"}});
  EXPECT_EQ(stray.message, "{{/a}} closes no open section");
  Error crossed = failure("{{#a}}{{#b}}{{/a}}{{/b}}", {{"a", "1"}, {"b", "1"}});
  EXPECT_EQ(crossed.message, "{{/a}} closes no open section (open: {{#b}})");
}

TEST(TextTemplate, TextThatIsNotATagStaysLiteral) {
  EXPECT_EQ(render("{{ x }} {{Upper}} {{x} {x}} {{}} {{-}} {{", {{"x", "X"}}),
            "{{ x }} {{Upper}} {{x} {x}} {{}} {{-}} {{");
  // A brace before a tag is text.
  EXPECT_EQ(render("{{{x}}}", {{"x", "X"}}), "{X}");
}

TEST(TextTemplate, UpperCaseNamesWhenAsked) {
  TextTemplateSyntax upper{.upperCaseNames = true};
  EXPECT_EQ(render("{{Name}} {{ x }}", {{"Name", "N"}}, upper), "N {{ x }}");
  EXPECT_EQ(failure("{{Upper}}", {{"x", ""}}, "t.in", upper).message,
            "unknown placeholder {{Upper}} (known: x)");
}

TEST(TextTemplate, StrictSyntaxRefusesStrayBraces) {
  TextTemplateSyntax strict{.upperCaseNames = true, .strict = true};
  EXPECT_EQ(render("a {{x}} b", {{"x", "1"}}, strict), "a 1 b");
  Error unterminated = failure("ok\n{{x", {{"x", "1"}}, "t.in", strict);
  EXPECT_EQ(unterminated.message, "unterminated placeholder '{{'");
  EXPECT_EQ(unterminated.where, "t.in:2");
  Error spaced = failure("{{ x }}", {{"x", "1"}}, "t.in", strict);
  EXPECT_EQ(spaced.message, "unknown placeholder {{ x }} (known: x)");
  // Problems are reported in the order they appear.
  EXPECT_EQ(failure("{{y}} {{", {{"x", "1"}}, "t.in", strict).message,
            "unknown placeholder {{y}} (known: x)");
  // Named by the line it starts on.
  EXPECT_EQ(failure("\n{{\n}}", {{"x", ""}}, "t.in", strict).where, "t.in:2");
}

TEST(TextTemplate, ShippedTemplatesRenderAlikeInEverySyntax) {
  // The files under templates/ hold only lower-case tags, so the syntax a
  // tool reads its template with changes nothing for them.
  namespace fs = std::filesystem;
  int files = 0;
  for (const auto &entry :
       fs::directory_iterator(fs::path(KTUNE_SOURCE_DIR) / "templates")) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
    std::map<std::string, std::string> values;
    for (size_t at = text.find("{{"); at != std::string::npos;
         at = text.find("{{", at + 2)) {
      size_t start = at + 2 + (text[at + 2] == '#' || text[at + 2] == '/');
      size_t end = text.find("}}", start);
      ASSERT_NE(end, std::string::npos) << entry.path();
      values[text.substr(start, end - start)] = "<value>";
    }
    ASSERT_FALSE(values.empty()) << entry.path();
    std::string origin = entry.path().filename().string();
    auto plain = renderTextTemplate(text, values, origin);
    ASSERT_TRUE(plain) << plain.error().str();
    EXPECT_EQ(plain->find("{{"), std::string::npos) << origin;
    for (TextTemplateSyntax syntax :
         {TextTemplateSyntax{.upperCaseNames = true},
          TextTemplateSyntax{.upperCaseNames = true, .strict = true}}) {
      auto other = renderTextTemplate(text, values, origin, syntax);
      ASSERT_TRUE(other) << other.error().str();
      EXPECT_EQ(*other, *plain) << origin;
    }
    ++files;
  }
  EXPECT_EQ(files, 3);
}
