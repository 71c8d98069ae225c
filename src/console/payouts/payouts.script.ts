/**
 * The payouts page's enhancement: a file picker beside the settle form's textarea that reads the
 * chosen CSV into it (the form itself posts the text; without scripts it is pasted).
 */
export const PAYOUTS_SCRIPT = `
(function () {
  var input = document.getElementById('settle-file');
  var area = document.getElementById('settle-csv');
  if (!input || !area || !window.FileReader) return;
  input.closest('.js-only').hidden = false;
  input.addEventListener('change', function () {
    var file = input.files && input.files[0];
    if (!file) return;
    var reader = new FileReader();
    reader.onload = function () { area.value = String(reader.result); };
    reader.readAsText(file);
  });
})();
`;
