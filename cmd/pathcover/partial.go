package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/pathcover/pathcover/internal/report"
)

// A partialOutput is an answer read from recordings of which some cover
// only part of their run (a size limit, a write that failed, a process
// killed before its end: profile.WPPHeader.Cut): its text begins with
// one line per reason, and its JSON is {"Partial": reasons, "Answer":
// the answer}, so that neither a reader nor a program takes it for the
// whole run's.
type partialOutput struct {
	Partial []string
	Answer  report.Output
}

// withCut returns out, said to cover only part of the run for the
// reasons cut; out as it is if there are none.
func withCut(out report.Output, cut []string) report.Output {
	if len(cut) == 0 {
		return out
	}
	return &partialOutput{cut, out}
}

// writeCut writes the lines that say why an answer covers only part of
// the run.
func writeCut(w io.Writer, cut []string) error {
	for _, c := range cut {
		if _, err := fmt.Fprintf(w, "partial: %s; this answer covers only part of the run\n", printable(c)); err != nil {
			return err
		}
	}
	return nil
}

func (p *partialOutput) WriteText(w io.Writer) error {
	if err := writeCut(w, p.Partial); err != nil {
		return err
	}
	return p.Answer.WriteText(w)
}

func (p *partialOutput) WriteJSON(w io.Writer) error {
	var answer bytes.Buffer
	if err := p.Answer.WriteJSON(&answer); err != nil {
		return err
	}
	return json.NewEncoder(w).Encode(struct {
		Partial []string
		Answer  json.RawMessage
	}{p.Partial, bytes.TrimSpace(answer.Bytes())})
}
