import { describe, expect, it } from 'vitest';
import { joinThinking, splitThinking } from '../../../src/activities/model/reasoning';

describe('splitThinking', () => {
  it('splitThinking: a leading <think> block is thinking; the text after it is the reply', () => {
    expect(splitThinking('<think>\nThe user wants 42.\n</think>\n\nForty-two.')).toEqual({
      thinking: 'The user wants 42.',
      text: 'Forty-two.',
    });
    expect(splitThinking('  <think></think>Hi')).toEqual({ thinking: '', text: 'Hi' });
  });

  it('splitThinking: text without a leading block is left whole, a block later on included', () => {
    expect(splitThinking(' Plain answer.')).toEqual({ thinking: '', text: ' Plain answer.' });
    expect(splitThinking('Answer <think>no</think>')).toEqual({ thinking: '', text: 'Answer <think>no</think>' });
  });

  it('splitThinking: an unclosed block is thinking to the end (cut off, or still streaming)', () => {
    expect(splitThinking('<think>Still going')).toEqual({ thinking: 'Still going', text: '' });
  });

  it('splitThinking: while streaming, the start of <think> and of </think> are held back until they are complete', () => {
    expect(splitThinking('<thi', true)).toEqual({ thinking: '', text: '' });
    expect(splitThinking('<thi')).toEqual({ thinking: '', text: '<thi' });
    expect(splitThinking('<think>Almost done</th', true)).toEqual({ thinking: 'Almost done', text: '' });
    expect(splitThinking('<think>Almost done</th')).toEqual({ thinking: 'Almost done</th', text: '' });
  });

  it('joinThinking: the non-blank parts, a blank line apart', () => {
    expect(joinThinking('From the field.', '', 'From the block.')).toBe('From the field.\n\nFrom the block.');
    expect(joinThinking('', '  ')).toBe('');
  });
});
