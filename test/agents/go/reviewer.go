package main

import (
	"context"
	"fmt"
	"iter"
	"regexp"
	"strings"
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

const (
	baseBranchQuestion = "Which base branch should I compare this diff against?"
	migrationsQuestion = "Should I also check the migration files? (yes/no)"
)

func reviewerQuestion(index int) string {
	switch index {
	case 0:
		return baseBranchQuestion
	case 1:
		return migrationsQuestion
	}
	return fmt.Sprintf("Anything else I should know before reviewing? (question %d)", index+1)
}

var diffLine = regexp.MustCompile(`(?m)^[+-]|\s[+-]\S`)

// codeReviewer asks `questions` questions (INPUT_REQUIRED turns on the same task), then completes
// with review.json. Each turn is one Execute call; the answers so far are kept per task.
type codeReviewer struct {
	questions int
	mu        sync.Mutex
	answers   map[a2a.TaskID][]string
}

func newCodeReviewer(questions int) *codeReviewer {
	return &codeReviewer{questions: questions, answers: map[a2a.TaskID][]string{}}
}

func textOf(m *a2a.Message) string {
	if m == nil {
		return ""
	}
	var texts []string
	for _, p := range m.Parts {
		if t := p.Text(); t != "" {
			texts = append(texts, t)
		}
	}
	return strings.Join(texts, "\n")
}

func agentText(execCtx *a2asrv.ExecutorContext, text string, extra ...*a2a.Part) *a2a.Message {
	return a2a.NewMessageForTask(a2a.MessageRoleAgent, execCtx, append([]*a2a.Part{a2a.NewTextPart(text)}, extra...)...)
}

func jsonPart(v any) *a2a.Part {
	return &a2a.Part{Content: a2a.Data{Value: v}, MediaType: "application/json"}
}

func (r *codeReviewer) Execute(ctx context.Context, execCtx *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		status := func(state a2a.TaskState, text string) bool {
			return yield(a2a.NewStatusUpdateEvent(execCtx, state, agentText(execCtx, text)), nil)
		}
		var answers []string
		if execCtx.StoredTask == nil {
			if !yield(a2a.NewSubmittedTask(execCtx, execCtx.Message), nil) {
				return
			}
			if !diffLine.MatchString(textOf(execCtx.Message)) {
				status(a2a.TaskStateRejected, "There is no diff in this message to review.")
				return
			}
		} else {
			r.mu.Lock()
			answers = append(r.answers[execCtx.TaskID], textOf(execCtx.Message))
			r.mu.Unlock()
		}
		if len(answers) < r.questions {
			r.mu.Lock()
			r.answers[execCtx.TaskID] = answers
			r.mu.Unlock()
			status(a2a.TaskStateInputRequired, reviewerQuestion(len(answers)))
			return
		}
		r.forget(execCtx.TaskID)

		baseBranch := "main"
		if len(answers) > 0 && strings.TrimSpace(answers[0]) != "" {
			baseBranch = strings.TrimSpace(answers[0])
		}
		if strings.ContainsAny(baseBranch, " \t\n") {
			status(a2a.TaskStateFailed, fmt.Sprintf("Base branch %q does not exist.", baseBranch))
			return
		}
		if !status(a2a.TaskStateWorking, "Reviewing against "+baseBranch) {
			return
		}
		// Data part values are stored with gob by the in-memory task store: plain maps of any and slices of any only.
		comments := []any{map[string]any{"severity": "suggestion", "body": "Consider adding a unit test that covers this change."}}
		if len(answers) > 1 && strings.TrimSpace(answers[1]) != "" {
			comments = append(comments, map[string]any{"severity": "info", "body": "Migration files checked: " + strings.TrimSpace(answers[1])})
		}
		artifact := a2a.NewArtifactEvent(execCtx, jsonPart(map[string]any{"baseBranch": baseBranch, "verdict": "approve", "comments": comments}))
		artifact.Artifact.Name = "review.json"
		artifact.Artifact.Description = "Code review result"
		artifact.LastChunk = true
		if !yield(artifact, nil) {
			return
		}
		status(a2a.TaskStateCompleted, "Review complete")
	}
}

func (r *codeReviewer) Cancel(ctx context.Context, execCtx *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		r.forget(execCtx.TaskID)
		yield(a2a.NewStatusUpdateEvent(execCtx, a2a.TaskStateCanceled, agentText(execCtx, "Review canceled")), nil)
	}
}

func (r *codeReviewer) forget(id a2a.TaskID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.answers, id)
}
