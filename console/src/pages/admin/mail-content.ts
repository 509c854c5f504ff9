/** Whether the HTML would load anything from elsewhere (images, styles, fonts): worth a button. */
const remoteReference =
  /(?:\b(?:src|background|poster)\s*=\s*["']?\s*|url\(\s*["']?\s*|@import\s+["']?)(?:https?:)?\/\//i;
export const hasRemoteContent = (html: string) => remoteReference.test(html);
