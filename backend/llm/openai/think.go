package openai

import "strings"

const (
	openTag  = "<think>"
	closeTag = "</think>"
)

// segment is a piece of content sorted into reasoning or answer text.
type segment struct {
	reasoning bool
	text      string
}

// thinkSplitter moves a leading <think>…</think> block of streamed content into reasoning, for
// servers that leave the model's tags in the text. Tags may be split across chunks at any
// byte; a <think> after the answer has started is text (a model writing about tags).
type thinkSplitter struct {
	state int
	buf   string // bytes held back because they may start a tag
}

const (
	stStart = iota // nothing but whitespace seen
	stThink        // inside <think>
	stAfter        // just after </think>: leading whitespace is dropped
	stText         // the answer
)

// Push sorts the next chunk of content.
func (s *thinkSplitter) Push(chunk string) []segment {
	var out []segment
	data := s.buf + chunk
	s.buf = ""
	for data != "" {
		switch s.state {
		case stStart:
			t := strings.TrimLeft(data, " \t\r\n")
			switch {
			case strings.HasPrefix(t, openTag):
				s.state, data = stThink, t[len(openTag):]
			case strings.HasPrefix(openTag, t): // empty or a prefix of the tag: wait
				s.buf, data = data, ""
			default:
				s.state = stText
			}
		case stThink:
			if i := strings.Index(data, closeTag); i >= 0 {
				out = appendSeg(out, true, data[:i])
				s.state, data = stAfter, data[i+len(closeTag):]
				continue
			}
			keep := partialSuffix(data, closeTag)
			out = appendSeg(out, true, data[:len(data)-keep])
			s.buf, data = data[len(data)-keep:], ""
		case stAfter:
			data = strings.TrimLeft(data, " \t\r\n")
			if data != "" {
				s.state = stText
			}
		case stText:
			out = appendSeg(out, false, data)
			data = ""
		}
	}
	return out
}

// Flush returns what was held back when the content ends.
func (s *thinkSplitter) Flush() []segment {
	b := s.buf
	s.buf = ""
	switch s.state {
	case stThink:
		return appendSeg(nil, true, b)
	case stStart:
		return appendSeg(nil, false, b)
	}
	return nil
}

func appendSeg(out []segment, reasoning bool, text string) []segment {
	if text == "" {
		return out
	}
	return append(out, segment{reasoning: reasoning, text: text})
}

// partialSuffix is the length of the longest suffix of s that is a proper prefix of tag.
func partialSuffix(s, tag string) int {
	for n := min(len(s), len(tag)-1); n > 0; n-- {
		if strings.HasSuffix(s, tag[:n]) {
			return n
		}
	}
	return 0
}
