// Upload forms: a file past the game's size limit (the input's data-max-bytes) is refused here,
// before the browser sends it, with its size, the limit and how to shrink it; the server checks
// the same limit anyway (a file chosen without this script is refused there, after sending).
(function () {
  "use strict";
  // As armada.sizes.human_size: MiB from 1 MiB up, else KiB rounded up (never "0.0 MiB").
  function mib(bytes) {
    return bytes >= 1048576 ? (bytes / 1048576).toFixed(1) + " MiB" : Math.ceil(bytes / 1024) + " KiB";
  }
  function check(input) {
    var limit = Number(input.dataset.maxBytes), file = input.files && input.files[0];
    var note = document.getElementById(input.id + "-too-large");
    var message = "";
    if (file && limit && file.size > limit) {
      message = file.name + " is " + file.size + " bytes (" + mib(file.size) + ") and this game takes versions of at most " +
        limit + " bytes (" + mib(limit) + "): nothing was sent. To fit, export the model to ONNX and quantise it, " +
        "and leave training data and checkpoints out of the folder (docs: Where your bot runs, Model files).";
    }
    input.setCustomValidity(message);
    if (note) { note.textContent = message; note.hidden = !message; }
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("input[type=file][data-max-bytes]").forEach(function (input) {
      input.addEventListener("change", function () { check(input); });
      check(input);
    });
  });
}());
