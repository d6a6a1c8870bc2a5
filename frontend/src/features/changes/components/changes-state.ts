import { bool, num, str } from '@/lib/url-state';

// URL state of the Changes page: the inbox filter and its page.
export const changesSchema = {
  status: str('open'),
  direction: str(),
  tag: str(),
  commit: str(),
  all: bool(),
  dataset: str(),
  setting: str(),
  codec: str(),
  metric: str(),
  offset: num(0),
};
