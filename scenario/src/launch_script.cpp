#include "pipesim/scenario/launch_script.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <optional>

#include "pipesim/core/config_error.hpp"
#include "pipesim/core/text_file.hpp"

namespace pipesim::scenario {
namespace {

// One token of a script: a word as written (quotes kept, expanded later), a separator between
// commands (";" for a newline too, "&&", "||", "|", "&"), or an array assignment.
struct Token {
  enum Kind { Word, Separator, Array } kind = Word;
  std::string text;                   // the word, the separator, or the array's name
  bool append = false;                // Array: `+=`
  std::vector<std::string> elements;  // Array: its words as written
};

Token separator(std::string text) {
  return Token{Token::Separator, std::move(text), false, {}};
}

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

bool is_name(std::string_view s) {
  return !s.empty() && std::isdigit(static_cast<unsigned char>(s[0])) == 0 &&
         std::all_of(s.begin(), s.end(), is_name_char);
}

class Lexer {
 public:
  Lexer(std::string_view text, const std::string& source) : t_(text), source_(source) {}

  std::vector<Token> tokens() {
    std::vector<Token> out;
    bool skip_target = false;  // the word after a redirection is its file
    while (true) {
      skip_blanks(false);
      if (i_ >= t_.size()) break;
      const char c = t_[i_];
      if (c == '#') {
        skip_comment();
      } else if (c == '\n' || c == ';') {
        ++i_;
        out.push_back(separator(";"));
      } else if (c == '&' || c == '|') {
        const bool doubled = i_ + 1 < t_.size() && t_[i_ + 1] == c;
        out.push_back(separator(std::string(doubled ? 2 : 1, c)));
        i_ += doubled ? 2 : 1;
      } else if (c == '>' || c == '<') {
        skip_target = !redirection();
      } else if (c == '(' || c == ')') {
        ++i_;  // a subshell's parentheses: its commands are read as the script's
        out.push_back(separator(";"));
      } else {
        Token w = word();
        if (skip_target && w.kind == Token::Word) {
          skip_target = false;
          continue;
        }
        // "2>&1": the descriptor before a redirection is no word.
        if (w.kind == Token::Word && i_ < t_.size() && (t_[i_] == '>' || t_[i_] == '<') &&
            std::all_of(w.text.begin(), w.text.end(), ::isdigit)) {
          continue;
        }
        out.push_back(std::move(w));
      }
    }
    return out;
  }

  // Words of one command line, without expansion (split_words).
  std::vector<std::string> plain_words() {
    std::vector<std::string> out;
    while (true) {
      skip_blanks(true);
      if (i_ >= t_.size()) break;
      if (t_[i_] == '#') {
        skip_comment();
        continue;
      }
      std::string raw = word_text();
      if (raw.empty()) {
        // An operator outside quotes: a pasted list is one command's arguments.
        throw core::ConfigError(
            source_, "quoting",
            fmt::format("'{}' outside quotes: quote the value that holds it", t_[i_]));
      }
      out.push_back(raw);
    }
    return out;
  }

 private:
  void skip_blanks(bool newlines) {
    while (i_ < t_.size()) {
      if (t_[i_] == ' ' || t_[i_] == '\t' || t_[i_] == '\r' || (newlines && t_[i_] == '\n')) {
        ++i_;
      } else if (t_[i_] == '\\' && i_ + 1 < t_.size() && t_[i_ + 1] == '\n') {
        i_ += 2;  // a line continuation
      } else {
        break;
      }
    }
  }

  void skip_comment() {
    while (i_ < t_.size() && t_[i_] != '\n')
      ++i_;
  }

  // Consumes a redirection operator; true when it names no file ("2>&1", ">&2").
  bool redirection() {
    while (i_ < t_.size() && (t_[i_] == '>' || t_[i_] == '<'))
      ++i_;
    if (i_ < t_.size() && t_[i_] == '&') {
      ++i_;
      while (i_ < t_.size() &&
             (std::isdigit(static_cast<unsigned char>(t_[i_])) != 0 || t_[i_] == '-'))
        ++i_;
      return true;
    }
    return false;
  }

  [[noreturn]] void unclosed(const char* what) const {
    throw core::ConfigError(source_, "quoting", fmt::format("unclosed {} at the end", what));
  }

  // Consumes from an opening bracket to its match ("${...}", "$(...)"), quotes respected.
  void balanced(char open, char close, std::string& out) {
    int depth = 0;
    while (i_ < t_.size()) {
      const char c = t_[i_];
      if (c == '\\' && i_ + 1 < t_.size()) {
        out += t_.substr(i_, 2);
        i_ += 2;
        continue;
      }
      if (c == '\'' || c == '"') {
        quoted(c, out);
        continue;
      }
      out += c;
      ++i_;
      if (c == open) ++depth;
      if (c == close && --depth == 0) return;
    }
    unclosed(open == '{' ? "${" : "$(");
  }

  void quoted(char quote, std::string& out) {
    out += t_[i_++];
    while (i_ < t_.size() && t_[i_] != quote) {
      if (quote == '"' && t_[i_] == '\\' && i_ + 1 < t_.size()) {
        if (t_[i_ + 1] == '\n') {
          i_ += 2;  // a continuation inside double quotes
          continue;
        }
        out += t_.substr(i_, 2);
        i_ += 2;
        continue;
      }
      if (quote == '"' && t_[i_] == '$' && i_ + 1 < t_.size() &&
          (t_[i_ + 1] == '{' || t_[i_ + 1] == '(')) {
        out += t_[i_++];
        balanced(t_[i_], t_[i_] == '{' ? '}' : ')', out);
        continue;
      }
      out += t_[i_++];
    }
    if (i_ >= t_.size()) unclosed(quote == '"' ? "double quote" : "single quote");
    out += t_[i_++];
  }

  // One word as written, up to an unquoted blank or operator.
  std::string word_text() {
    std::string out;
    while (i_ < t_.size()) {
      const char c = t_[i_];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ';' || c == '&' || c == '|' ||
          c == '<' || c == '>' || c == '(' || c == ')') {
        break;
      }
      if (c == '\\' && i_ + 1 < t_.size()) {
        if (t_[i_ + 1] != '\n') out += t_.substr(i_, 2);
        i_ += 2;
        if (t_[i_ - 1] == '\n') break;  // a continuation ends the word
        continue;
      }
      if (c == '\'' || c == '"' || c == '`') {
        quoted(c, out);
        continue;
      }
      if (c == '$' && i_ + 1 < t_.size() && (t_[i_ + 1] == '{' || t_[i_ + 1] == '(')) {
        out += t_[i_++];
        balanced(t_[i_], t_[i_] == '{' ? '}' : ')', out);
        continue;
      }
      out += c;
      ++i_;
    }
    return out;
  }

  Token word() {
    std::string text = word_text();
    // NAME=( ... ) and NAME+=( ... ): the elements up to the closing parenthesis.
    const bool assigns = !text.empty() && text.back() == '=' && i_ < t_.size() && t_[i_] == '(';
    const bool append = assigns && text.size() > 2 && text[text.size() - 2] == '+';
    const std::string name = assigns ? text.substr(0, text.size() - (append ? 2 : 1)) : "";
    if (!assigns || !is_name(name)) return Token{Token::Word, text, false, {}};
    ++i_;
    Token array{Token::Array, name, append, {}};
    while (true) {
      skip_blanks(true);
      if (i_ >= t_.size()) unclosed("array (");
      if (t_[i_] == ')') {
        ++i_;
        break;
      }
      if (t_[i_] == '#') {
        skip_comment();
        continue;
      }
      array.elements.push_back(word_text());
      if (array.elements.back().empty()) ++i_;  // a stray operator inside the list
    }
    return array;
  }

  std::string_view t_;
  const std::string& source_;
  size_t i_ = 0;
};

// The index of the bracket that closes the one at raw[open_at] (raw.size() when none does).
size_t matching(const std::string& raw, size_t open_at, char open, char close) {
  int depth = 0;
  for (size_t k = open_at; k < raw.size(); ++k) {
    if (raw[k] == open) ++depth;
    if (raw[k] == close && --depth == 0) return k;
  }
  return raw.size();
}

// Splits an unquoted expansion on blanks.
std::vector<std::string> split_blanks(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\n') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// The fields one word expands to, built piece by piece as bash does: quoted text joins the
// current field, an unquoted expansion's blanks start new ones.
class Fields {
 public:
  void text(const std::string& s, bool quoted) {
    if (quoted) {
      cur_ += s;
      have_ = true;
      return;
    }
    const bool lead = !s.empty() && std::isspace(static_cast<unsigned char>(s.front())) != 0;
    const bool trail = !s.empty() && std::isspace(static_cast<unsigned char>(s.back())) != 0;
    const std::vector<std::string> parts = split_blanks(s);
    if (lead) end();
    for (size_t k = 0; k < parts.size(); ++k) {
      if (k > 0) end();
      cur_ += parts[k];
      have_ = true;
    }
    if (trail) end();
  }
  void literal(char c) {
    cur_ += c;
    have_ = true;
  }
  //! Ends the current field (a new element of a quoted "${A[@]}").
  void end() {
    if (have_) out_.push_back(cur_);
    cur_.clear();
    have_ = false;
  }
  std::vector<std::string> take() {
    end();
    return std::move(out_);
  }

 private:
  std::vector<std::string> out_;
  std::string cur_;
  bool have_ = false;
};

class Shell {
 public:
  explicit Shell(const std::string& source) : source_(source) {}

  LaunchCommand run(const std::vector<Token>& tokens) {
    size_t i = 0;
    while (i < tokens.size() && !exited_) {
      // One command: tokens up to a separator.
      std::vector<const Token*> cmd;
      std::string before = previous_;
      while (i < tokens.size() && tokens[i].kind != Token::Separator)
        cmd.push_back(&tokens[i++]);
      if (i < tokens.size()) previous_ = tokens[i++].text;
      if (!cmd.empty()) command(cmd, before);
    }
    if (!found_) {
      throw core::ConfigError(source_, "training command",
                              "none found: no command runs a .py entry point through a launcher "
                              "(torchrun, python, srun, mpirun, deepspeed, accelerate, uv)");
    }
    result_.warnings.insert(result_.warnings.begin(), warnings_.begin(), warnings_.end());
    return result_;
  }

  std::vector<std::string> expand(const std::string& raw) {
    Fields f;
    expand_into(raw, f, false);
    return f.take();
  }

 private:
  struct Frame {
    bool outer;  // the enclosing code runs
    bool taken;  // a branch of this if has run
    bool active;
  };

  bool active() const { return frames_.empty() || frames_.back().active; }

  void warn(const std::string& what) {
    if (std::find(warnings_.begin(), warnings_.end(), what) == warnings_.end()) {
      warnings_.push_back(what);
    }
  }

  // ---- expansion ----
  const std::vector<std::string>* lookup(const std::string& name) const {
    const auto it = vars_.find(name);
    return it == vars_.end() ? nullptr : &it->second;
  }

  std::string scalar(const std::string& name) const {
    const auto* v = lookup(name);
    return v == nullptr || v->empty() ? std::string() : v->front();
  }

  std::string joined(const std::vector<std::string>& fields) const {
    std::string out;
    for (const std::string& f : fields)
      out += (out.empty() ? "" : " ") + f;
    return out;
  }

  // `${...}`'s inside: the values it names (an array's elements, or one value).
  std::vector<std::string> parameter(const std::string& inner) {
    if (inner.starts_with("#")) {
      const std::string name = inner.substr(1, inner.find('[') - 1);
      const auto* v = lookup(name);
      return {std::to_string(v == nullptr ? 0 : v->size())};
    }
    size_t n = 0;
    while (n < inner.size() && is_name_char(inner[n]))
      ++n;
    const std::string name = inner.substr(0, n);
    std::string rest = inner.substr(n);
    std::vector<std::string> values;
    if (rest.starts_with("[")) {
      const size_t close = rest.find(']');
      const std::string index = rest.substr(1, close - 1);
      rest = close == std::string::npos ? "" : rest.substr(close + 1);
      const auto* v = lookup(name);
      if (index == "@" || index == "*") {
        if (v != nullptr) values = *v;
      } else if (v != nullptr) {
        const auto k = arithmetic(index);
        if (k && *k >= 0 && static_cast<size_t>(*k) < v->size()) values = {(*v)[*k]};
      }
    } else if (const auto* v = lookup(name); v != nullptr && !v->empty()) {
      values = {v->front()};
    }
    if (rest.empty()) return values;
    // Defaults: ":-" "-" ":=" "=" ":+" "+".
    const bool colon = rest.starts_with(":");
    if (rest.size() < (colon ? 2u : 1u)) {
      warn(fmt::format("the expansion ${{{}}} is not followed: taken as ${{{}}}", inner, name));
      return values;
    }
    const std::string op = rest.substr(colon ? 1 : 0, 1);
    const std::string word = rest.substr(colon ? 2 : 1);
    const bool set = lookup(name) != nullptr;
    const bool empty = values.empty() || (values.size() == 1 && values.front().empty());
    const bool use_default = colon ? empty : !set;
    if (op == "-" || op == "=") {
      if (!use_default) return values;
      std::string value = joined(expand(word));
      if (op == "=") vars_[name] = {value};
      return {value};
    }
    if (op == "+")
      return use_default ? std::vector<std::string>{} : std::vector{joined(expand(word))};
    warn(fmt::format("the expansion ${{{}}} is not followed: taken as ${{{}}}", inner, name));
    return values;
  }

  // ---- arithmetic: + - * / % and parentheses over integers and variable names ----
  std::optional<long> arithmetic(const std::string& expression) {
    Fields f;
    expand_into(expression, f, true);
    const std::string text = joined(f.take());
    size_t pos = 0;
    const auto value = sum(text, pos);
    while (pos < text.size() && text[pos] == ' ')
      ++pos;
    if (!value || pos != text.size()) {
      warn(fmt::format("the arithmetic $(({})) is not understood: taken as empty", expression));
      return std::nullopt;
    }
    return value;
  }

  std::optional<long> factor(const std::string& t, size_t& p) {
    // Parentheses and variables that name variables nest: bash gives up past a depth, so does
    // this (a variable that names itself would recurse for ever).
    struct Depth {
      int& d;
      explicit Depth(int& depth) : d(++depth) {}
      ~Depth() { --d; }
    } depth(arithmetic_depth_);
    if (arithmetic_depth_ > 64) return std::nullopt;
    while (p < t.size() && t[p] == ' ')
      ++p;
    if (p >= t.size()) return std::nullopt;
    if (t[p] == '(') {
      ++p;
      const auto v = sum(t, p);
      while (p < t.size() && t[p] == ' ')
        ++p;
      if (!v || p >= t.size() || t[p] != ')') return std::nullopt;
      ++p;
      return v;
    }
    if (t[p] == '-') {
      ++p;
      const auto v = factor(t, p);
      return v ? std::optional<long>(-*v) : std::nullopt;
    }
    size_t start = p;
    while (p < t.size() && is_name_char(t[p]))
      ++p;
    const std::string token = t.substr(start, p - start);
    if (token.empty()) return std::nullopt;
    if (std::isdigit(static_cast<unsigned char>(token[0])) != 0) {
      try {
        size_t used = 0;
        const long v = std::stol(token, &used);
        return used == token.size() ? std::optional<long>(v) : std::nullopt;
      } catch (const std::exception&) {
        return std::nullopt;
      }
    }
    const std::string v = scalar(token);
    if (v.empty()) return 0;
    size_t q = 0;
    return sum(v, q);
  }

  std::optional<long> product(const std::string& t, size_t& p) {
    auto v = factor(t, p);
    while (v) {
      while (p < t.size() && t[p] == ' ')
        ++p;
      if (p >= t.size() || (t[p] != '*' && t[p] != '/' && t[p] != '%')) break;
      const char op = t[p++];
      const auto r = factor(t, p);
      if (!r || (op != '*' && *r == 0)) return std::nullopt;
      v = op == '*' ? *v * *r : op == '/' ? *v / *r : *v % *r;
    }
    return v;
  }

  std::optional<long> sum(const std::string& t, size_t& p) {
    auto v = product(t, p);
    while (v) {
      while (p < t.size() && t[p] == ' ')
        ++p;
      if (p >= t.size() || (t[p] != '+' && t[p] != '-')) break;
      const char op = t[p++];
      const auto r = product(t, p);
      if (!r) return std::nullopt;
      v = op == '+' ? *v + *r : *v - *r;
    }
    return v;
  }

  // Expands `$...` at raw[i] (i at the '$') into `f`; returns the index after it.
  size_t dollar(const std::string& raw, size_t i, Fields& f, bool quoted) {
    const size_t next = i + 1;
    if (next >= raw.size()) {
      f.literal('$');
      return next;
    }
    if (raw.compare(next, 2, "((") == 0) {
      const size_t close = raw.rfind("))");
      if (close == std::string::npos || close < next + 2) return raw.size();
      const auto v = arithmetic(raw.substr(next + 2, close - next - 2));
      f.text(v ? std::to_string(*v) : "", quoted);
      return close + 2;
    }
    if (raw[next] == '(') {
      // A command substitution is not run: it expands to nothing.
      return matching(raw, next, '(', ')') + 1;
    }
    if (raw[next] == '{') {
      const size_t k = matching(raw, next, '{', '}');
      const std::vector<std::string> values = parameter(raw.substr(next + 1, k - next - 1));
      emit(values, f, quoted);
      return k + 1;
    }
    if (std::isdigit(static_cast<unsigned char>(raw[next])) != 0 || raw[next] == '@' ||
        raw[next] == '*' || raw[next] == '#' || raw[next] == '?' || raw[next] == '$') {
      f.text(raw[next] == '#' || raw[next] == '?' ? "0" : "", quoted);  // no positionals
      return next + 1;
    }
    size_t k = next;
    while (k < raw.size() && is_name_char(raw[k]))
      ++k;
    if (k == next) {
      f.literal('$');
      return next;
    }
    f.text(scalar(raw.substr(next, k - next)), quoted);
    return k;
  }

  // An array's elements: quoted, each its own field; unquoted, each split on blanks.
  void emit(const std::vector<std::string>& values, Fields& f, bool quoted) {
    for (size_t k = 0; k < values.size(); ++k) {
      if (k > 0) {
        if (quoted) {
          f.end();
        } else {
          f.text(" ", false);
        }
      }
      f.text(values[k], quoted);
    }
  }

  void expand_into(const std::string& raw, Fields& f, bool quoted_context) {
    size_t i = 0;
    while (i < raw.size()) {
      const char c = raw[i];
      if (c == '\'' && !quoted_context) {
        const size_t close = std::min(raw.find('\'', i + 1), raw.size());
        f.text(raw.substr(i + 1, close - i - 1), true);
        i = close + 1;
      } else if (c == '"' && !quoted_context) {
        ++i;
        std::string lit;
        while (i < raw.size() && raw[i] != '"') {
          if (raw[i] == '\\' && i + 1 < raw.size() &&
              std::string_view("\"\\$`").find(raw[i + 1]) != std::string_view::npos) {
            f.text(std::string(1, raw[i + 1]), true);
            i += 2;
          } else if (raw[i] == '$') {
            i = dollar(raw, i, f, true);
          } else {
            f.text(std::string(1, raw[i]), true);
            ++i;
          }
        }
        f.text("", true);  // "" is an empty field
        ++i;
      } else if (c == '`' && !quoted_context) {
        i = std::min(raw.find('`', i + 1), raw.size()) + 1;  // a command substitution is not run
      } else if (c == '\\' && i + 1 < raw.size()) {
        f.literal(raw[i + 1]);
        i += 2;
      } else if (c == '$') {
        i = dollar(raw, i, f, quoted_context);
      } else {
        f.literal(c);
        ++i;
      }
    }
  }

  std::string expand_string(const std::string& raw) {
    Fields f;
    // An assignment's value is not split: expanded as if quoted.
    expand_into(raw, f, false);
    return joined(f.take());
  }

  // ---- tests ----
  bool primary(std::vector<std::string> w) {
    w.erase(std::remove_if(w.begin(), w.end(),
                           [](const std::string& x) {
                             return x == "[[" || x == "]]" || x == "[" || x == "]" || x == "test";
                           }),
            w.end());
    bool negate = false;
    while (!w.empty() && w.front() == "!") {
      negate = !negate;
      w.erase(w.begin());
    }
    std::vector<std::string> v;
    for (const std::string& raw : w)
      v.push_back(raw.starts_with("-") && raw.size() <= 3 ? raw : expand_string(raw));
    bool result = false;
    if (v.size() == 1) {
      result = !v[0].empty();
    } else if (v.size() == 2 && (v[0] == "-n" || v[0] == "-z")) {
      result = (v[0] == "-n") == !v[1].empty();
    } else if (v.size() == 2 && v[0].size() == 2 && v[0][0] == '-') {
      result = true;  // a file test: the script's files are where it expects them
    } else if (v.size() == 3 && (v[1] == "==" || v[1] == "=" || v[1] == "!=")) {
      result = (v[0] == v[2]) == (v[1] != "!=");
    } else if (v.size() == 3 && v[1].size() == 3 && v[1][0] == '-') {
      const long a = std::atol(v[0].c_str());
      const long b = std::atol(v[2].c_str());
      const std::string& op = v[1];
      result = op == "-eq"   ? a == b
               : op == "-ne" ? a != b
               : op == "-lt" ? a < b
               : op == "-le" ? a <= b
               : op == "-gt" ? a > b
                             : a >= b;
    } else {
      std::string text;
      for (const std::string& x : w)
        text += (text.empty() ? "" : " ") + x;
      warn(fmt::format("the test '{}' is not understood: taken as false", text));
      return false;
    }
    return result != negate;
  }

  // A condition: primaries joined by && and || (left to right, as bash's lists).
  bool condition(const std::vector<std::pair<std::string, std::vector<std::string>>>& parts) {
    bool result = false;
    for (size_t k = 0; k < parts.size(); ++k) {
      const bool value = primary(parts[k].second);
      if (k == 0) {
        result = value;
      } else if (parts[k].first == "&&") {
        result = result && value;
      } else {
        result = result || value;
      }
    }
    return result;
  }

  // ---- commands ----
  void command(std::vector<const Token*> cmd, const std::string& before) {
    std::vector<std::string> words;
    for (const Token* t : cmd)
      if (t->kind == Token::Word) words.push_back(t->text);
    const std::string first = words.empty() ? "" : words.front();
    if (pending_condition_) {
      // Inside `if ... ; then`: the condition's parts until `then`.
      if (first == "then") {
        finish_condition();
        cmd.erase(cmd.begin());
        if (cmd.empty()) return;
        return command(cmd, ";");
      }
      condition_.emplace_back(before, words);
      return;
    }
    if (skip_depth_ > 0) {
      if (first == "for" || first == "while" || first == "until" || first == "case") ++skip_depth_;
      if (first == "done" || first == "esac" || first == "}") skip_depth_ -= 1;
      return;
    }
    if ((first == "elif" || first == "else" || first == "fi") && frames_.empty()) {
      throw core::ConfigError(source_, "syntax", fmt::format("'{}' without 'if'", first));
    }
    if (first == "if" || first == "elif") {
      if (first == "if") {
        frames_.push_back({active(), false, false});
      } else {
        frames_.back().active = false;
      }
      pending_condition_ = true;
      condition_.clear();
      words.erase(words.begin());
      condition_.emplace_back(";", words);
      if_kind_ = first;
      return;
    }
    if (first == "else") {
      Frame& fr = frames_.back();
      fr.active = fr.outer && !fr.taken;
      fr.taken = true;
      cmd.erase(cmd.begin());
      if (!cmd.empty()) command(cmd, ";");
      return;
    }
    if (first == "fi") {
      frames_.pop_back();
      return;
    }
    if (first == "for" || first == "while" || first == "until" || first == "case") {
      warn(
          fmt::format("a '{}' block is not run (the reader does not follow loops or case)", first));
      skip_depth_ = 1;
      return;
    }
    if (first == "function" || (words.size() >= 1 && first.ends_with("()")) ||
        (words.size() >= 2 && words[1] == "{" && cmd.size() == 2)) {
      warn("a function definition is skipped");
      skip_depth_ = 1;
      return;
    }
    if (!active() || first == "then" || first == "do") return;
    if (first == "exit" && before != "&&" && before != "||") {
      exited_ = true;
      return;
    }
    // Assignments, alone or after export/declare/local/readonly.
    size_t k = 0;
    const bool builtin = first == "export" || first == "declare" || first == "local" ||
                         first == "readonly" || first == "typeset";
    bool assignments = true;
    for (const Token* t : cmd) {
      if (k++ == 0 && builtin) continue;
      if (t->kind == Token::Array) continue;
      if (builtin && t->text.starts_with("-")) continue;
      const size_t eq = t->text.find('=');
      if (eq == std::string::npos ||
          !is_name(t->text.substr(0, t->text.find("+=") == eq - 1 ? eq - 1 : eq))) {
        assignments = false;
      }
    }
    if (assignments) {
      for (const Token* t : cmd)
        assign(*t, builtin && t == cmd.front());
      return;
    }
    std::vector<std::string> fields;
    for (const std::string& raw : words) {
      const std::vector<std::string> more = expand(raw);
      fields.insert(fields.end(), more.begin(), more.end());
    }
    training_command(fields);
  }

  void assign(const Token& t, bool is_builtin_word) {
    if (is_builtin_word || (t.kind == Token::Word && t.text.starts_with("-"))) return;
    if (t.kind == Token::Array) {
      std::vector<std::string> values;
      for (const std::string& raw : t.elements) {
        const std::vector<std::string> more = expand(raw);
        values.insert(values.end(), more.begin(), more.end());
      }
      auto& v = vars_[t.text];
      if (!t.append) v.clear();
      v.insert(v.end(), values.begin(), values.end());
      return;
    }
    const size_t eq = t.text.find('=');
    const bool append = eq > 0 && t.text[eq - 1] == '+';
    const std::string name = t.text.substr(0, append ? eq - 1 : eq);
    const std::string value = expand_string(t.text.substr(eq + 1));
    auto& v = vars_[name];
    if (append && !v.empty()) {
      v.front() += value;
    } else {
      v = {value};
    }
  }

  void finish_condition() {
    pending_condition_ = false;
    Frame& fr = frames_.back();
    if (!fr.outer || fr.taken) {
      fr.active = false;
      return;
    }
    fr.active = condition(condition_);
    fr.taken = fr.active;
  }

  static bool is_launcher(const std::string& word) {
    const std::string base = std::filesystem::path(word).filename().string();
    return base.starts_with("python") || base == "torchrun" || base == "srun" || base == "mpirun" ||
           base == "deepspeed" || base == "accelerate" || base == "uv" || base.ends_with(".py");
  }

  void training_command(const std::vector<std::string>& fields) {
    if (fields.empty() || !is_launcher(fields.front())) return;
    const auto entry = std::find_if(fields.begin(), fields.end(), [](const std::string& w) {
      return w.ends_with(".py") && w.find(' ') == std::string::npos;
    });
    if (entry == fields.end()) return;
    if (found_) {
      warn(fmt::format("more than one training command: the last one ({}) is read",
                       std::filesystem::path(*entry).filename().string()));
    }
    found_ = true;
    result_.launcher.assign(fields.begin(), entry);
    result_.entry_point = *entry;
    result_.args.assign(entry + 1, fields.end());
  }

  const std::string& source_;
  std::map<std::string, std::vector<std::string>> vars_;
  std::vector<Frame> frames_;
  bool pending_condition_ = false;
  std::string if_kind_;
  std::vector<std::pair<std::string, std::vector<std::string>>> condition_;
  int skip_depth_ = 0;
  int arithmetic_depth_ = 0;
  bool exited_ = false;
  bool found_ = false;
  std::string previous_ = ";";
  std::vector<std::string> warnings_;
  LaunchCommand result_;
};

}  // namespace

std::vector<std::string> split_words(std::string_view text, const std::string& source) {
  Lexer lexer(text, source);
  Shell shell(source);
  std::vector<std::string> out;
  for (const std::string& raw : lexer.plain_words()) {
    const std::vector<std::string> fields = shell.expand(raw);
    out.insert(out.end(), fields.begin(), fields.end());
  }
  return out;
}

LaunchCommand parse_argument_list(std::string_view text, const std::string& source) {
  LaunchCommand c;
  std::vector<std::string> words = split_words(text, source);
  const auto entry = std::find_if(words.begin(), words.end(),
                                  [](const std::string& w) { return w.ends_with(".py"); });
  if (entry == words.end()) {
    c.args = std::move(words);
    return c;
  }
  c.launcher.assign(words.begin(), entry);
  c.entry_point = *entry;
  c.args.assign(entry + 1, words.end());
  return c;
}

LaunchCommand parse_launch_script(std::string_view text, const std::string& source) {
  Lexer lexer(text, source);
  Shell shell(source);
  return shell.run(lexer.tokens());
}

LaunchCommand read_launch_script(const std::string& path) {
  if (!std::filesystem::exists(path)) throw core::ConfigError(path, "file", "no such file");
  return parse_launch_script(core::read_text_file(path), path);
}

}  // namespace pipesim::scenario
