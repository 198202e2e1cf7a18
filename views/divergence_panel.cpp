#include "views/divergence_panel.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QPlainTextEdit>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextStream>
#include <QVBoxLayout>
#include <algorithm>

namespace scalify::views {

namespace {

constexpr int kContextLines = 8;  // shown above and below the source line

QString escaped(const std::string& s) { return QString::fromStdString(s).toHtmlEscaped(); }

}  // namespace

QString resolve_source_file(const QString& source_file, const QString& dist_file) {
  if (source_file.isEmpty()) return {};
  if (QFileInfo(source_file).isFile()) return QFileInfo(source_file).absoluteFilePath();
  if (QFileInfo(source_file).isAbsolute() || dist_file.isEmpty()) return {};
  const QFileInfo beside(QFileInfo(dist_file).absoluteDir(), source_file);
  return beside.isFile() ? beside.absoluteFilePath() : QString();
}

DivergencePanel::DivergencePanel(QWidget* parent)
    : QWidget(parent),
      verdict_(new QLabel(this)),
      details_(new QLabel(this)),
      recheck_(new QLabel(this)),
      source_(new QPlainTextEdit(this)) {
  auto* layout = new QVBoxLayout(this);
  QFont big = verdict_->font();
  big.setPointSizeF(big.pointSizeF() * 1.3);
  big.setBold(true);
  verdict_->setFont(big);
  details_->setWordWrap(true);
  details_->setTextFormat(Qt::RichText);
  details_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  source_->setReadOnly(true);
  source_->setLineWrapMode(QPlainTextEdit::NoWrap);
  source_->setFont(QFont(QStringLiteral("monospace")));
  recheck_->setWordWrap(true);
  recheck_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  recheck_->hide();
  layout->addWidget(verdict_);
  layout->addWidget(recheck_);
  layout->addWidget(details_);
  layout->addWidget(source_, 1);
  show_message(tr("no result yet"));
}

QString DivergencePanel::verdict_text() const { return verdict_->text(); }

QString DivergencePanel::recheck_text() const {
  return recheck_->isHidden() ? QString() : recheck_->text();
}

void DivergencePanel::show_recheck(int outcome, const QString& summary) {
  // ProofRecheck::Outcome: accepted, rejected, not checkable, error.
  static const char* const kColours[] = {"#1e7b45", "#c0321f", "#6b7280", "#6b7280"};
  const int i = outcome >= 0 && outcome < 4 ? outcome : 3;
  recheck_->setStyleSheet(QStringLiteral("color: %1;").arg(QLatin1String(kColours[i])));
  recheck_->setText(summary);
  recheck_->show();
}

void DivergencePanel::show_message(const QString& verdict, const QString& detail) {
  verdict_->setText(verdict);
  verdict_->setStyleSheet({});
  recheck_->clear();
  recheck_->hide();
  details_->setText(detail.toHtmlEscaped());
  source_->clear();
  source_->hide();
  source_path_.clear();
  source_line_ = -1;
  highlighted_text_.clear();
}

void DivergencePanel::show_result(const verify::CheckResult& result, const QString& dist_file) {
  show_message(QString::fromStdString(std::string(verify::verdict_name(result.verdict))));
  QString html;
  if (result.verdict == verify::Verdict::kEquivalent) {
    verdict_->setStyleSheet(QStringLiteral("color: #1a7f37"));
    html += tr("%1 goals proven in %2 s (%3 parts, %4 from the memo).")
                .arg(result.goals.size())
                .arg(result.stats.seconds, 0, 'f', 2)
                .arg(result.stats.parts)
                .arg(result.stats.memo_hits);
  } else if (result.verdict == verify::Verdict::kInconclusive) {
    verdict_->setStyleSheet(QStringLiteral("color: #9a6700"));
    html += tr("stopped: %1").arg(escaped(result.stats.stop_reason));
  }
  for (const verify::Assumption& a : result.assumptions) {
    html += tr("<br><b>assumes</b> %1 is %2: %3")
                .arg(escaped(a.dist), escaped(a.layout.to_string(result.mesh)), escaped(a.why));
  }
  if (const auto& d = result.divergence) {
    verdict_->setStyleSheet(QStringLiteral("color: #cf222e"));
    QString layouts;
    for (const std::string& l : d->operand_layouts) {
      layouts += (layouts.isEmpty() ? "" : ", ") + escaped(l);
    }
    html += tr("<b>first divergent node</b> %1 (%2)<br><b>reason</b> %3<br>"
               "<b>operand layouts</b> %4<br><b>closest reference node</b> %5<br>"
               "<b>op_name</b> %6")
                .arg(escaped(d->dist_node), escaped(d->op), escaped(d->reason),
                     layouts.isEmpty() ? tr("none") : layouts,
                     d->ref_node.empty() ? tr("none") : escaped(d->ref_node),
                     d->op_name.empty() ? tr("none") : escaped(d->op_name));
    details_->setText(html);
    show_source(*d, dist_file);
    return;
  }
  details_->setText(html);
}

void DivergencePanel::show_source(const verify::Divergence& d, const QString& dist_file) {
  if (!d.source) return;
  const QString file = QString::fromStdString(d.source->file);
  const auto line = static_cast<int>(d.source->line);
  const QString path = resolve_source_file(file, dist_file);
  QFile f(path);
  if (path.isEmpty() || !f.open(QIODevice::ReadOnly | QIODevice::Text)) {
    details_->setText(
        details_->text() +
        tr("<br><b>source</b> %1:%2 (file not found)").arg(file.toHtmlEscaped()).arg(line));
    return;
  }
  QStringList lines;
  QTextStream in(&f);
  while (!in.atEnd()) lines << in.readLine();
  if (line < 1 || line > lines.size()) {
    details_->setText(details_->text() + tr("<br><b>source</b> %1:%2 (past the end of the file)")
                                             .arg(file.toHtmlEscaped())
                                             .arg(line));
    return;
  }
  details_->setText(details_->text() +
                    tr("<br><b>source</b> %1:%2").arg(path.toHtmlEscaped()).arg(line));
  const int first = std::max(1, line - kContextLines);
  const int last = std::min(static_cast<int>(lines.size()), line + kContextLines);
  QString text;
  for (int i = first; i <= last; ++i) {
    text += QStringLiteral("%1  %2\n").arg(i, 5).arg(lines[i - 1]);
  }
  source_->setPlainText(text);
  source_->show();
  // Highlight the line: an extra selection spanning the whole block.
  QTextEdit::ExtraSelection mark;
  mark.format.setBackground(QColor(255, 220, 215));
  mark.format.setProperty(QTextFormat::FullWidthSelection, true);
  mark.cursor = QTextCursor(source_->document()->findBlockByNumber(line - first));
  source_->setExtraSelections({mark});
  source_->setTextCursor(mark.cursor);
  source_->centerCursor();
  source_path_ = path;
  source_line_ = line;
  highlighted_text_ = lines[line - 1];
}

}  // namespace scalify::views
