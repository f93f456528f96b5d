/* Where the focus goes when a page loads (an accessibility trial):
 * - a form sent back with errors: the first field in error (a screen reader reads its label and its error with
 *   it; a phone scrolls to it), or the errors of no one field (a wrong password), announced;
 * - else the element the address names (#new-token after a token is made: the browser scrolls to it but,
 *   with a fragment, skips `autofocus`), when it is made to take the focus (tabindex="-1").
 * Without this the focus went to the form's first field, or nowhere, and nothing was said. */
(function () {
  "use strict";
  function place() {
    const general = document.querySelector("form ul.errorlist.nonfield");
    if (general) {
      general.setAttribute("role", "alert");
      general.tabIndex = -1;
    }
    const invalid = document.querySelector("form [aria-invalid=true]");
    if (invalid) return invalid.focus();
    if (general) return general.focus();
    let named = null;
    try {
      named = location.hash.length > 1 ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
    } catch (err) {
      named = null; // a malformed address fragment names nothing
    }
    if (named && named.getAttribute("tabindex") === "-1") named.focus();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", place);
  else place();
})();
