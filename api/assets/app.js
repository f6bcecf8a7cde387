// asa dashboard: the little behaviour the server-rendered pages need. No framework, no build.
"use strict";

document.addEventListener("DOMContentLoaded", function () {
  // Copy buttons: <button data-copy="element-id">.
  document.querySelectorAll("[data-copy]").forEach(function (btn) {
    btn.addEventListener("click", function () {
      var el = document.getElementById(btn.getAttribute("data-copy"));
      if (!el) return;
      var text = el.textContent.trim();
      var done = function (ok) {
        btn.textContent = ok ? "Copied" : "Select and copy";
        btn.setAttribute("data-copied", ok ? "true" : "false");
        setTimeout(function () { btn.textContent = "Copy"; }, 2500);
      };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(function () { done(true); }, function () { done(fallbackCopy(el)); });
      } else {
        done(fallbackCopy(el));
      }
    });
  });

  // Forms that ask first: <form data-confirm="question">.
  document.querySelectorAll("form[data-confirm]").forEach(function (form) {
    form.addEventListener("submit", function (ev) {
      if (!window.confirm(form.getAttribute("data-confirm"))) ev.preventDefault();
    });
  });

  // Filters that apply on change: <select data-autosubmit>.
  document.querySelectorAll("select[data-autosubmit]").forEach(function (sel) {
    sel.addEventListener("change", function () {
      if (sel.form.requestSubmit) sel.form.requestSubmit(); else sel.form.submit();
    });
  });
});

// fallbackCopy selects the element's text and copies it with the older command.
function fallbackCopy(el) {
  var range = document.createRange();
  range.selectNodeContents(el);
  var sel = window.getSelection();
  sel.removeAllRanges();
  sel.addRange(range);
  try {
    return document.execCommand("copy");
  } catch (e) {
    return false;
  }
}
