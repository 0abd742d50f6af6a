# The readers of users' files (g2o_pose_graph.h, bal_problem.h) and the
# front of a user's problem through ecmo::Sweep (user_front.h): compiled
# once for pose_graph_front, bundle_adjustment_front, real_pose_graph_check
# and the readers' tests (tests/g2o_pose_graph_test.cc,
# tests/bal_problem_test.cc). Not installed. Included from the top-level
# CMakeLists.txt, so that the tests have it without BUILD_EXAMPLES.
set(_dir ${CMAKE_CURRENT_LIST_DIR})
add_library(ecmo_pipeline_files STATIC
  ${_dir}/g2o_pose_graph.cc ${_dir}/bal_problem.cc ${_dir}/user_front.cc)
target_include_directories(ecmo_pipeline_files PUBLIC ${_dir})
target_link_libraries(ecmo_pipeline_files PUBLIC ecmo_problems ecmo_adapters ecmo_plugin)
target_compile_options(ecmo_pipeline_files PRIVATE ${ECMO_WARNINGS})
unset(_dir)
