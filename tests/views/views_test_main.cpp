// The views tests' main: a QApplication (on the offscreen platform unless one is chosen, so the
// tests also list and run without a display), then Catch2.
#define CATCH_CONFIG_RUNNER
#include <QApplication>
#include <catch2/catch.hpp>

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  QCoreApplication::setOrganizationName(QStringLiteral("ScalifyTests"));
  QCoreApplication::setApplicationName(QStringLiteral("scalify_views_tests"));
  return Catch::Session().run(argc, argv);
}
