#pragma once
// A small XML well-formedness check for the SVGs pipesim writes (no XML library needed):
// one root element, every start tag closed in order, attributes quoted and not repeated,
// entity references well formed, comments, processing instructions, CDATA and a DOCTYPE
// (with an internal subset) skipped correctly. Not a validating parser.

#include <cctype>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace pipesim::testing {

//! "" when `xml` is well formed, else what is wrong and where (byte offset).
inline std::string xml_problem(std::string_view xml) {
  std::vector<std::string> open;
  size_t i = 0;
  int roots = 0;
  auto at = [&](size_t pos, const std::string& what) {
    return what + " at byte " + std::to_string(pos);
  };
  auto name_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' ||
           c == ':';
  };
  auto check_text = [&](size_t from, size_t to) -> std::string {
    for (size_t k = from; k < to; ++k) {
      if (xml[k] == '<') return at(k, "'<' in text");
      if (xml[k] != '&') continue;
      const size_t semi = xml.find(';', k);
      if (semi == std::string_view::npos || semi > to || semi == k + 1) {
        return at(k, "bad entity reference");
      }
      const std::string_view ref = xml.substr(k + 1, semi - k - 1);
      static const std::set<std::string_view> kNamed{"lt", "gt", "amp", "quot", "apos"};
      if (ref.front() == '#') {
        if (ref.size() < 2) return at(k, "bad character reference");
      } else if (kNamed.count(ref) == 0) {
        return at(k, "undeclared entity &" + std::string(ref) + ";");
      }
      k = semi;
    }
    return {};
  };
  while (i < xml.size()) {
    const size_t lt = xml.find('<', i);
    const size_t text_end = lt == std::string_view::npos ? xml.size() : lt;
    if (open.empty()) {
      for (size_t k = i; k < text_end; ++k) {
        if (!std::isspace(static_cast<unsigned char>(xml[k]))) {
          return at(k, "text outside the root element");
        }
      }
    } else if (auto p = check_text(i, text_end); !p.empty()) {
      return p;
    }
    if (lt == std::string_view::npos) break;
    auto skip_to = [&](std::string_view end, const std::string& what) -> std::string {
      const size_t e = xml.find(end, lt);
      if (e == std::string_view::npos) return at(lt, "unterminated " + what);
      i = e + end.size();
      return {};
    };
    const std::string_view rest = xml.substr(lt);
    std::string p;
    if (rest.substr(0, 4) == "<!--") {
      p = skip_to("-->", "comment");
    } else if (rest.substr(0, 9) == "<![CDATA[") {
      if (open.empty()) return at(lt, "CDATA outside the root");
      p = skip_to("]]>", "CDATA");
    } else if (rest.substr(0, 2) == "<?") {
      p = skip_to("?>", "processing instruction");
    } else if (rest.substr(0, 9) == "<!DOCTYPE") {
      if (roots > 0 || !open.empty()) return at(lt, "DOCTYPE after the root");
      size_t k = lt + 9;
      int brackets = 0;
      while (k < xml.size() && (xml[k] != '>' || brackets > 0)) {
        if (xml[k] == '[') ++brackets;
        if (xml[k] == ']') --brackets;
        ++k;
      }
      if (k >= xml.size()) return at(lt, "unterminated DOCTYPE");
      i = k + 1;
    } else if (rest.substr(0, 2) == "</") {
      size_t k = lt + 2;
      while (k < xml.size() && name_char(xml[k]))
        ++k;
      const std::string name(xml.substr(lt + 2, k - lt - 2));
      while (k < xml.size() && std::isspace(static_cast<unsigned char>(xml[k])))
        ++k;
      if (k >= xml.size() || xml[k] != '>') return at(lt, "bad end tag");
      if (open.empty() || open.back() != name) {
        return at(lt, "end tag </" + name + "> does not match <" +
                          (open.empty() ? std::string("nothing") : open.back()) + ">");
      }
      open.pop_back();
      i = k + 1;
    } else {
      size_t k = lt + 1;
      while (k < xml.size() && name_char(xml[k]))
        ++k;
      const std::string name(xml.substr(lt + 1, k - lt - 1));
      if (name.empty()) return at(lt, "'<' without a tag name");
      std::set<std::string> attributes;
      bool self_closing = false;
      while (true) {
        while (k < xml.size() && std::isspace(static_cast<unsigned char>(xml[k])))
          ++k;
        if (k >= xml.size()) return at(lt, "unterminated tag <" + name + ">");
        if (xml[k] == '>') break;
        if (xml.substr(k, 2) == "/>") {
          self_closing = true;
          ++k;
          break;
        }
        const size_t a = k;
        while (k < xml.size() && name_char(xml[k]))
          ++k;
        const std::string attribute(xml.substr(a, k - a));
        if (attribute.empty()) return at(k, "bad attribute in <" + name + ">");
        if (!attributes.insert(attribute).second) {
          return at(a, "repeated attribute " + attribute);
        }
        while (k < xml.size() && std::isspace(static_cast<unsigned char>(xml[k])))
          ++k;
        if (k >= xml.size() || xml[k] != '=') return at(k, "attribute " + attribute + " has no =");
        ++k;
        while (k < xml.size() && std::isspace(static_cast<unsigned char>(xml[k])))
          ++k;
        if (k >= xml.size() || (xml[k] != '"' && xml[k] != '\'')) {
          return at(k, "unquoted attribute " + attribute);
        }
        const char quote = xml[k];
        const size_t close = xml.find(quote, k + 1);
        if (close == std::string_view::npos) return at(k, "unterminated attribute value");
        if (auto q = check_text(k + 1, close); !q.empty()) return q;
        k = close + 1;
      }
      if (open.empty()) {
        if (++roots > 1) return at(lt, "a second root element <" + name + ">");
      }
      if (!self_closing) open.push_back(name);
      i = k + 1;
    }
    if (!p.empty()) return p;
  }
  if (!open.empty()) return "unclosed element <" + open.back() + "> at the end";
  if (roots == 0) return "no root element";
  return {};
}

}  // namespace pipesim::testing
