package org.gpusched.core.policy;

import org.gpusched.core.model.Placement;
import org.gpusched.core.model.Schedule;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.objective.ObjectiveFunction;
import org.gpusched.core.objective.WasteObjective;

/** What the greedy engine ranks its constructions by, and keeps the best of. */
enum Ranking {
    /** The papers' per-decision proxy ({@link ObjectiveFunction}). */
    F_OBJ {
        @Override
        double evaluate(SchedulingProblem problem, Placement[] placements, int[] nodeTypes) {
            return ObjectiveFunction.evaluate(problem, placements, nodeTypes);
        }
    },
    /** f_OBJ's job terms with each used node priced by what it wastes over the next H ({@link WasteObjective}). */
    WASTE {
        @Override
        double evaluate(SchedulingProblem problem, Placement[] placements, int[] nodeTypes) {
            return WasteObjective.evaluate(problem, placements, nodeTypes);
        }
    };

    /** The exact value of a whole plan under this ranking. */
    abstract double evaluate(SchedulingProblem problem, Placement[] placements, int[] nodeTypes);

    /** The exact value of a schedule under this ranking; a schedule carries its f_OBJ already. */
    double of(SchedulingProblem problem, Schedule s) {
        return this == F_OBJ ? s.objective() : evaluate(problem, s.placements(), s.nodeTypes());
    }
}
