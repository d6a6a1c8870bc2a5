/**
 * Plotly renders hover templates, legend names, titles and annotations as a subset of
 * HTML (`<a href>`, `<b>`, `<br>`, ...). Text that comes from outside -- commit messages,
 * authors, branch, machine and dataset names -- goes through `plotText` first, so it is
 * shown as written and never becomes a live link or markup. Plotly decodes `&lt;`,
 * `&gt;` and `&amp;` back to the characters when it draws them.
 */
export function plotText(value: string | null | undefined): string {
  return (value ?? '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
