#include "frontend/lexer.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <set>

namespace tessel {

const char* tokSpelling(Tok t) {
  switch (t) {
    case Tok::End:
      return "end of file";
    case Tok::Ident:
      return "identifier";
    case Tok::Int:
      return "integer";
    case Tok::Float:
      return "number";
    case Tok::Directive:
      return "directive";
    case Tok::Semi:
      return "';'";
    case Tok::Comma:
      return "','";
    case Tok::LParen:
      return "'('";
    case Tok::RParen:
      return "')'";
    case Tok::LBrace:
      return "'{'";
    case Tok::RBrace:
      return "'}'";
    case Tok::LBracket:
      return "'['";
    case Tok::RBracket:
      return "']'";
    case Tok::Colon:
      return "':'";
    case Tok::DotDot:
      return "'..'";
    case Tok::Plus:
      return "'+'";
    case Tok::Minus:
      return "'-'";
    case Tok::Star:
      return "'*'";
    case Tok::Slash:
      return "'/'";
    case Tok::Percent:
      return "'%'";
    case Tok::Caret:
      return "'^'";
    case Tok::Lt:
      return "'<'";
    case Tok::Gt:
      return "'>'";
    case Tok::Le:
      return "'<='";
    case Tok::Ge:
      return "'>='";
    case Tok::EqEq:
      return "'=='";
    case Tok::Ne:
      return "'!='";
    case Tok::Amp:
      return "'&'";
    case Tok::Pipe:
      return "'|'";
    case Tok::Assign:
      return "'='";
    case Tok::PlusAssign:
      return "'+='";
    case Tok::MinusAssign:
      return "'-='";
    case Tok::StarAssign:
      return "'*='";
    case Tok::SlashAssign:
      return "'/='";
  }
  return "?";
}

bool isKeyword(const std::string& s) {
  static const std::set<std::string> kw = {
      "parameter", "iterator", "stencil",  "function",    "iterate", "inout",    "allocin",
      "copyin",    "copyout",  "constant", "coefficient", "shmem",   "no-shmem", "gmem",
      "double",    "float",    "int",      "bool",        "true",    "false"};
  return kw.count(s) > 0;
}

namespace {

bool identStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool identChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool digit(char c) { return c >= '0' && c <= '9'; }

class Lexer {
 public:
  Lexer(const SourceFile& f, DiagnosticEngine& d) : file_(f), src_(f.text()), diags_(d) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    if (src_.compare(0, 3, "\xEF\xBB\xBF") == 0) pos_ = 3;  // a UTF-8 byte-order mark
    for (;;) {
      skipSpaceAndComments();
      Token t = next();
      out.push_back(t);
      if (t.kind == Tok::End) break;
    }
    return out;
  }

 private:
  const SourceFile& file_;
  const std::string& src_;
  DiagnosticEngine& diags_;
  size_t pos_ = 0;

  char peek(size_t k = 0) const { return pos_ + k < src_.size() ? src_[pos_ + k] : '\0'; }
  SourceLoc loc(size_t at) const { return SourceLoc{&file_, static_cast<uint32_t>(at)}; }

  [[noreturn]] void fail(DiagId id, size_t at, std::string msg, std::string hint = {}) {
    diags_.report(id, loc(at), std::move(msg), std::move(hint));
    throw CompilationAborted{};
  }

  void skipSpaceAndComments() {
    for (;;) {
      char c = peek();
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        ++pos_;
      } else if (c == '/' && peek(1) == '/') {
        while (pos_ < src_.size() && src_[pos_] != '\n') ++pos_;
      } else if (c == '/' && peek(1) == '*') {
        size_t start = pos_;
        pos_ += 2;
        while (pos_ < src_.size() && !(src_[pos_] == '*' && peek(1) == '/')) ++pos_;
        if (pos_ >= src_.size())
          fail(DiagId::unterminated_comment, start, "unterminated '/*' comment",
               "close it with '*/'");
        pos_ += 2;
      } else {
        return;
      }
    }
  }

  Token make(Tok k, size_t start) {
    Token t;
    t.kind = k;
    t.text = src_.substr(start, pos_ - start);
    t.loc = loc(start);
    t.line = file_.lineCol(static_cast<uint32_t>(start)).first;
    return t;
  }

  Token number(size_t start) {
    bool isFloat = false;
    while (digit(peek())) ++pos_;
    // A '.' starts a fraction unless it begins '..' (a range such as 1..N).
    if (peek() == '.' && peek(1) != '.') {
      isFloat = true;
      ++pos_;
      while (digit(peek())) ++pos_;
    }
    if (peek() == 'e' || peek() == 'E') {
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (!digit(peek()))
        fail(DiagId::bad_number, start,
             "malformed number '" + src_.substr(start, pos_ - start) + "': exponent has no digits",
             "write an exponent like 1e-3");
      while (digit(peek())) ++pos_;
      isFloat = true;
    }
    if (peek() == 'f' || peek() == 'F') {
      ++pos_;
      isFloat = true;
    }
    if (identChar(peek())) {
      size_t end = pos_;
      while (end < src_.size() && identChar(src_[end])) ++end;
      fail(DiagId::bad_number, start, "malformed number '" + src_.substr(start, end - start) + "'",
           "separate a number from a following name with an operator or a space");
    }
    if (!isFloat) {
      errno = 0;
      std::strtoll(src_.c_str() + start, nullptr, 10);
      if (errno == ERANGE)
        fail(DiagId::bad_number, start,
             "integer literal '" + src_.substr(start, pos_ - start) + "' is too large",
             "integers are 64-bit: at most 9223372036854775807");
    }
    return make(isFloat ? Tok::Float : Tok::Int, start);
  }

  Token next() {
    size_t start = pos_;
    if (pos_ >= src_.size()) return make(Tok::End, start);
    char c = peek();
    if (identStart(c)) {
      while (identChar(peek())) ++pos_;
      // `no-shmem` is one keyword.
      if (src_.compare(start, pos_ - start, "no") == 0 && src_.compare(pos_, 6, "-shmem") == 0 &&
          !identChar(pos_ + 6 < src_.size() ? src_[pos_ + 6] : '\0'))
        pos_ += 6;
      return make(Tok::Ident, start);
    }
    if (digit(c) || (c == '.' && digit(peek(1)))) return number(start);
    if (c == '#') {
      ++pos_;
      while (identChar(peek())) ++pos_;
      std::string word = src_.substr(start + 1, pos_ - start - 1);
      if (word != "pragma" && word != "assign")
        fail(DiagId::bad_directive, start, "unknown directive '#" + word + "'",
             "Tessel knows '#pragma' (before a stencil) and '#assign' (inside a stencil body)");
      Token t = make(Tok::Directive, start);
      t.text = word;
      return t;
    }
    ++pos_;
    auto two = [&](char second, Tok yes, Tok no) {
      if (peek() == second) {
        ++pos_;
        return make(yes, start);
      }
      return make(no, start);
    };
    switch (c) {
      case ';':
        return make(Tok::Semi, start);
      case ',':
        return make(Tok::Comma, start);
      case '(':
        return make(Tok::LParen, start);
      case ')':
        return make(Tok::RParen, start);
      case '{':
        return make(Tok::LBrace, start);
      case '}':
        return make(Tok::RBrace, start);
      case '[':
        return make(Tok::LBracket, start);
      case ']':
        return make(Tok::RBracket, start);
      case ':':
        return make(Tok::Colon, start);
      case '.':
        if (peek() == '.') {
          ++pos_;
          return make(Tok::DotDot, start);
        }
        break;
      case '+':
        return two('=', Tok::PlusAssign, Tok::Plus);
      case '-':
        return two('=', Tok::MinusAssign, Tok::Minus);
      case '*':
        return two('=', Tok::StarAssign, Tok::Star);
      case '/':
        return two('=', Tok::SlashAssign, Tok::Slash);
      case '%':
        return make(Tok::Percent, start);
      case '^':
        return make(Tok::Caret, start);
      case '<':
        return two('=', Tok::Le, Tok::Lt);
      case '>':
        return two('=', Tok::Ge, Tok::Gt);
      case '=':
        return two('=', Tok::EqEq, Tok::Assign);
      case '!':
        if (peek() == '=') {
          ++pos_;
          return make(Tok::Ne, start);
        }
        fail(DiagId::bad_character, start, "unexpected character '!'",
             "the language has no '!' operator; use '==' / '!=' comparisons or select()");
      case '&':
        return make(Tok::Amp, start);
      case '|':
        return make(Tok::Pipe, start);
      default:
        break;
    }
    unsigned char uc = static_cast<unsigned char>(c);
    std::string shown = std::isprint(uc) ? std::string("'") + c + "'"
                                         : fmt::format("byte 0x{:02x}", static_cast<unsigned>(uc));
    fail(DiagId::bad_character, start, "unexpected character " + shown,
         uc >= 0x80         ? "names are ASCII letters, digits and '_'; other characters may only "
                              "appear in comments"
         : std::isprint(uc) ? ""
                            : "the file may not be text; stencil programs are plain ASCII");
  }
};

}  // namespace

std::vector<Token> lex(const SourceFile& file, DiagnosticEngine& diags) {
  return Lexer(file, diags).run();
}

}  // namespace tessel
