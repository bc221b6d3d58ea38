// The manual's formulas (the lessons' equations): pymdownx.arithmatex marks them as \( \) and
// \[ \] in spans and divs of class "arithmatex"; KaTeX (Debian's libjs-katex, copied into the
// site by src/web/docs_hook.py) typesets them. Without KaTeX they stay as TeX source.
document.addEventListener("DOMContentLoaded", function () {
  if (typeof renderMathInElement !== "function") return;
  document.querySelectorAll(".arithmatex").forEach(function (el) {
    renderMathInElement(el, {
      delimiters: [
        { left: "\\(", right: "\\)", display: false },
        { left: "\\[", right: "\\]", display: true },
      ],
      throwOnError: false,
    });
  });
});
