// The verdict and, for a divergent program, why: the first divergent node, its operands'
// layouts, the closest reference node, its op_name, and its source site — the lines around it
// when the file is found (as given, or next to the distributed file), the metadata otherwise.
#pragma once

#include <QString>
#include <QWidget>

#include "verify/check_result.h"

class QLabel;
class QPlainTextEdit;

namespace scalify::views {

class DivergencePanel : public QWidget {
  Q_OBJECT

 public:
  explicit DivergencePanel(QWidget* parent = nullptr);

  /// Shows `result`; `dist_file` is where a relative source file is also looked for.
  void show_result(const verify::CheckResult& result, const QString& dist_file);
  /// Shows a state instead of a result ("checking…", "cancelled", an error).
  void show_message(const QString& verdict, const QString& detail = {});

  /// Shows what the independent proof checker said of the result's proof, under the verdict
  /// (green when it agrees, red when it rejects the proof, grey when it cannot tell).
  void show_recheck(int outcome, const QString& summary);
  QString recheck_text() const;

  QString verdict_text() const;
  /// The source file shown, or "" when only the metadata is.
  QString source_path() const { return source_path_; }
  /// The highlighted (1-based) source line, or -1.
  int source_line() const { return source_line_; }
  /// The text of the highlighted line as read from the file.
  QString highlighted_text() const { return highlighted_text_; }

 private:
  void show_source(const verify::Divergence& d, const QString& dist_file);

  QLabel* verdict_;
  QLabel* details_;
  QLabel* recheck_;
  QPlainTextEdit* source_;
  QString source_path_;
  int source_line_ = -1;
  QString highlighted_text_;
};

/// Where `source_file` is: as given (absolute or from the working folder), else in the folder
/// of `dist_file` (`scalify gen` writes model.py next to the HLO); "" when not found.
QString resolve_source_file(const QString& source_file, const QString& dist_file);

}  // namespace scalify::views
